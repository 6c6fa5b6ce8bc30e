import { useMemo, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { Loading } from '../../components/loading.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { StaleDataNotice } from '../../components/stale-data-notice.tsx';
import { DeviceTable } from '../../features/devices/components/device-table.tsx';
import { useSites } from '../../features/sites/api/get-sites.ts';
import { BindSiteForm } from '../../features/sites/components/bind-site-form.tsx';
import { SiteList, type SiteFocusRequest } from '../../features/sites/components/site-list.tsx';
import { FAILED_REFETCH_INTERVAL_MS } from '../../lib/refetch-while-failing.ts';
import { useTimeZoneRefusal } from './site-clock.tsx';
import { usePermission } from './use-permission.ts';

/** `/sites`: bind, unbind, reach each device; a just-bound site or `?site=` takes focus, on each visit. */
export function SitesRoute() {
  const sites = useSites();
  const [searchParams] = useSearchParams();
  const { key: visit } = useLocation();
  const linkedSite = searchParams.get('site');
  const linkedRequest = useMemo<SiteFocusRequest | null>(
    () => (linkedSite ? { siteId: linkedSite } : null),
    // A new request per visit, so a second jump to the same site focuses it again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [linkedSite, visit],
  );
  // A bind's request holds until the next visit.
  const [bound, setBound] = useState<{ request: SiteFocusRequest; visit: string } | null>(null);
  const focusRequest = bound?.visit === visit ? bound.request : linkedRequest;
  const setFocusRequest = (request: SiteFocusRequest) => setBound({ request, visit });
  const bindings = usePermission('administer');
  const clockRefusal = useTimeZoneRefusal();
  return (
    <>
      <title>Sites · powerdeck</title>
      <h1>Sites</h1>
      <p className="lead">
        A site is reachable once it is bound to your client. Bind it by its Plant ID, then open a
        device to schedule commands.
      </p>
      {bindings.allowed ? (
        <BindSiteForm onBound={(siteId) => setFocusRequest({ siteId })} />
      ) : (
        <p className="notice">{bindings.why}</p>
      )}
      {sites.data === undefined ? (
        sites.isError ? (
          <ErrorAlert
            error={sites.error}
            what="Could not load the bound sites."
            onRetry={() => void sites.refetch()}
          />
        ) : (
          <Loading what="Loading sites…" />
        )
      ) : (
        <>
          <StaleDataNotice
            query={sites}
            what="the site list"
            autoRetryMs={FAILED_REFETCH_INTERVAL_MS}
          />
          <SiteList
            sites={sites.data.sites}
            renderDevices={(site) => <DeviceTable site={site} />}
            focusRequest={focusRequest}
            canUnbind={bindings.allowed}
            clockRefusal={clockRefusal}
          />
        </>
      )}
    </>
  );
}
