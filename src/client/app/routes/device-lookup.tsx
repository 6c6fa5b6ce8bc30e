import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { Device, Site } from '#domain/device.ts';
import { QueryView } from '../../components/query-view.tsx';
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
export function DeviceLookup(props: DeviceLookupProps) {
  return (
    <QueryView query={useSites()} loading="Loading the device…" failed="Could not load the device.">
      {({ sites }) => lookUp(sites, props)}
    </QueryView>
  );
}

function lookUp(
  sites: readonly Site[],
  { siteId, deviceId, notFoundHeading, unboundAdvice, children }: DeviceLookupProps,
) {
  const lookup = findDevice(sites, siteId, deviceId);
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
