import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { Device, Site } from '#domain/device.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { findDevice } from '../../features/devices/lib/find-device.ts';
import { useSites } from '../../features/sites/api/get-sites.ts';
import { isKnownTimeZone } from '../../lib/time.ts';

export interface FoundDevice {
  site: Site;
  device: Device;
  /** The site's zone, or UTC when the browser does not know it. */
  timeZone: string;
  knownZone: boolean;
}

interface DeviceLookupProps {
  siteId: string;
  deviceId: string;
  notFoundHeading: string;
  /** Words after "Site X is not bound to this client." when the site is no longer bound. */
  unboundAdvice: string;
  children: (found: FoundDevice) => ReactNode;
}

/** Finds a bound site's device for the device pages: loading, error with retry, or not-found (with rebinding advice); else `children`. */
export function DeviceLookup({
  siteId,
  deviceId,
  notFoundHeading,
  unboundAdvice,
  children,
}: DeviceLookupProps) {
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
        <h1>{notFoundHeading}</h1>
        <div className="notice notice-warning">
          <p>
            {lookup.reason === 'siteNotBound'
              ? `Site ${siteId} is not bound to this client. ${unboundAdvice}`
              : `Site ${siteId} has no device ${deviceId}.`}
          </p>
          <p>
            <Link to="/sites">Go to the Sites page</Link>
          </p>
        </div>
      </>
    );

  const knownZone = isKnownTimeZone(lookup.site.timeZone);
  return children({
    site: lookup.site,
    device: lookup.device,
    knownZone,
    timeZone: knownZone ? lookup.site.timeZone : 'UTC',
  });
}
