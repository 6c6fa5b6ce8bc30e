import { useState } from 'react';
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

/**
 * `/sites`: home after sign-in. Bind and unbind sites, reach each device. A site just bound takes
 * focus; when a refresh fails, the list stays with a notice saying how old it is.
 */
export function SitesRoute() {
  const sites = useSites();
  const [focusRequest, setFocusRequest] = useState<SiteFocusRequest | null>(null);
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
