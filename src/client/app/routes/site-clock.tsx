import { Link } from 'react-router';
import type { Site } from '#domain/device.ts';
import { ROLE_NAMES } from '#domain/roles.ts';
import { useSession } from '../../features/session/api/get-session.ts';
import { SiteClockNotice } from '../../features/sites/components/site-clock-notice.tsx';
import { usePermission } from './use-permission.ts';

/** Most sites whose clock notices a page of several sites shows one by one. */
const MAX_NOTICES = 3;

/** Why the operator may not set a site's zone, or undefined (docs/decisions/006, section 6; the BFF refuses the others). */
export function useTimeZoneRefusal(): string | undefined {
  const administer = usePermission('administer');
  const role = useSession().data?.role;
  if (administer.allowed) return undefined;
  return `Only an administrator can set a site's time zone${role ? `; you are signed in as a ${ROLE_NAMES[role]}` : ''}. Ask one to set it.`;
}

/** The clock notice of one site, with the way to set its zone for those who may. */
export function SiteClock({ site }: { site: Site }) {
  return <SiteClockNotice site={site} setRefusal={useTimeZoneRefusal()} />;
}

/**
 * The clock notices of a page over several sites: one site's whatever it is; of several, only
 * those on the vendor's fixed offset (drifting at DST), three at most, the rest in one line.
 */
export function SiteClocks({ sites }: { sites: readonly Site[] }) {
  const refusal = useTimeZoneRefusal();
  const [only] = sites;
  if (sites.length === 1 && only) return <SiteClockNotice site={only} setRefusal={refusal} />;
  const fixed = sites.filter((site) => site.clock.source === 'offset');
  if (fixed.length === 0) return null;
  const more = fixed.slice(MAX_NOTICES);
  return (
    <div className="site-clocks">
      {fixed.slice(0, MAX_NOTICES).map((site) => (
        <SiteClockNotice key={site.siteId} site={site} setRefusal={refusal} />
      ))}
      {more.length > 0 ? (
        <p className="notice notice-warning">
          {more.length} more site{more.length === 1 ? ' is' : 's are'} on a fixed UTC offset that
          does not follow daylight saving time: {more.map((site) => site.name).join(', ')}. Set
          their time zones on the <Link to="/sites">Sites</Link> page.
        </p>
      ) : null}
    </div>
  );
}

/** The bound sites that hold any of `deviceIds`, in the sites' order. */
export function sitesOfDevices(
  sites: readonly Site[] | undefined,
  deviceIds: readonly string[],
): Site[] {
  const wanted = new Set(deviceIds);
  return (sites ?? []).filter((site) => site.devices.some((d) => wanted.has(d.deviceId)));
}
