import type { QueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { DeviceSummary } from '../../features/devices/components/device-summary.tsx';
import { findDevice } from '../../features/devices/lib/find-device.ts';
import { sitesQueryOptions, useSites } from '../../features/sites/api/get-sites.ts';

function DeviceRoute() {
  const { siteId = '', deviceId = '' } = useParams();
  const sites = useSites();

  if (sites.isPending) return <Loading what="Loading the device…" />;
  if (sites.isError)
    return (
      <ErrorAlert
        error={sites.error}
        what="Could not load the device."
        onRetry={() => void sites.refetch()}
      />
    );

  const lookup = findDevice(sites.data.sites, siteId, deviceId);
  if (!lookup.found)
    return (
      <>
        <title>Device not found · powerdeck</title>
        <h1>Device not found</h1>
        <div className="notice notice-warning">
          <p>
            {lookup.reason === 'siteNotBound'
              ? `Site ${siteId} is not bound to this client. Bind it again on the Sites page to reach ${deviceId}.`
              : `Site ${siteId} has no device ${deviceId}.`}
          </p>
          <p>
            <Link to="/sites">Go to the Sites page</Link>
          </p>
        </div>
      </>
    );

  const { site, device } = lookup;
  return (
    <>
      <title>{`${device.deviceId} · powerdeck`}</title>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link to="/sites">Sites</Link>
          </li>
          <li>{site.name}</li>
          <li aria-current="page">{device.deviceId}</li>
        </ol>
      </nav>
      <h1>
        {device.name} <span className="secondary">{device.deviceId}</span>
      </h1>
      <DeviceSummary site={site} device={device} />
    </>
  );
}

/** `/sites/:siteId/devices/:deviceId`: one device, its command form and its commands. */
export const deviceRoute = (queryClient: QueryClient) => ({
  Component: DeviceRoute,
  loader: () => {
    void queryClient.prefetchQuery(sitesQueryOptions());
    return null;
  },
});
