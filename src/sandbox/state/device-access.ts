import type { Catalog } from '../fixtures/catalog.ts';
import type { FixtureDevice, FixtureSite } from '../fixtures/fixture-types.ts';
import { notFoundOrNotYours } from '../sandbox-error.ts';
import type { ClientIdentity } from './client-identity.ts';
import type { SiteBindings } from './site-bindings.ts';
import type { StateMemory } from './state-memory.ts';

export function deviceIfYours(
  catalog: Catalog,
  bindings: SiteBindings,
  client: ClientIdentity,
  deviceId: string,
): FixtureDevice | undefined {
  const device = catalog.device(deviceId, client.region);
  return device && bindings.isBound(client, device.siteId) ? device : undefined;
}

/** @throws SandboxError 404 in the same words for unknown and not bound (no existence leak). */
export function accessibleDevice(
  catalog: Catalog,
  bindings: SiteBindings,
  client: ClientIdentity,
  deviceId: string,
): FixtureDevice {
  const device = deviceIfYours(catalog, bindings, client, deviceId);
  if (!device) throw notFoundOrNotYours(`Device ${deviceId}`);
  return device;
}

/**
 * Not found or not yours is refused before a slot is taken, so no client spends another partner's
 * budget. @throws SandboxError 404; RateLimitError 429 when the device has no slot left.
 */
export function deviceForCall(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
): FixtureDevice {
  const device = accessibleDevice(memory.catalog, memory.bindings, client, deviceId);
  memory.deviceCalls.takeOne(client.region, deviceId, memory.clock.now());
  return device;
}

/** @throws SandboxError 404 in the same words for unknown and not bound. */
export function accessibleSite(
  catalog: Catalog,
  bindings: SiteBindings,
  client: ClientIdentity,
  siteId: string,
): FixtureSite {
  const site = catalog.site(siteId, client.region);
  if (!site || !bindings.isBound(client, siteId)) throw notFoundOrNotYours(`Site ${siteId}`);
  return site;
}
