import type { Catalog } from '../fixtures/catalog.ts';
import type { FixtureDevice } from '../fixtures/fixture-types.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { ClientIdentity } from './client-identity.ts';
import type { SiteBindings } from './site-bindings.ts';

/**
 * The device, when known in the client's region and its site is bound to the client (spec 5
 * rule 5; README "Order of checks": 404 before 403).
 * @throws SandboxError 404 `not_found` for a device unknown in the region, 403 `site_not_bound`
 *   for a device of a site the client has not bound.
 */
export function accessibleDevice(
  catalog: Catalog,
  bindings: SiteBindings,
  client: ClientIdentity,
  deviceId: string,
): FixtureDevice {
  const device = catalog.device(deviceId, client.region);
  if (!device)
    throw new SandboxError(
      'not_found',
      `Device ${deviceId} is not known in this region; GET /sites lists the devices of the bound sites`,
      { deviceId },
    );
  if (!bindings.isBound(client, device.siteId)) throw unboundError(deviceId, device.siteId);
  return device;
}

/** The 403 `site_not_bound` for a device whose site is not bound to the client (spec 5 rule 5). */
export function unboundError(deviceId: string, siteId: string | undefined): SandboxError {
  return new SandboxError(
    'site_not_bound',
    `Device ${deviceId} belongs to site ${siteId ?? 'unknown'}, which is not bound to this client; bind it with POST /sites first`,
    { deviceId, siteId },
  );
}
