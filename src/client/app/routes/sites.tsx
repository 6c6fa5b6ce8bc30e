import { Loading } from '../../components/loading.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { DeviceTable } from '../../features/devices/components/device-table.tsx';
import { useSites } from '../../features/sites/api/get-sites.ts';
import { BindSiteForm } from '../../features/sites/components/bind-site-form.tsx';
import { SiteList } from '../../features/sites/components/site-list.tsx';

/** `/sites`: home after sign-in. Bind and unbind sites, reach each device. */
export function SitesRoute() {
  const sites = useSites();
  return (
    <>
      <title>Sites · powerdeck</title>
      <h1>Sites</h1>
      <p className="lead">
        A site is reachable once it is bound to your client. Bind it by its Plant ID, then open a
        device to schedule commands.
      </p>
      <BindSiteForm />
      {sites.isPending ? (
        <Loading what="Loading sites…" />
      ) : sites.isError ? (
        <ErrorAlert
          error={sites.error}
          what="Could not load the bound sites."
          onRetry={() => void sites.refetch()}
        />
      ) : (
        <SiteList sites={sites.data.sites} renderDevices={(site) => <DeviceTable site={site} />} />
      )}
    </>
  );
}
