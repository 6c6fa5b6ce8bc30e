import type { Catalog } from '../fixtures/catalog.ts';
import type { FixtureDevice, FixtureSite } from '../fixtures/fixture-types.ts';
import { notFoundOrNotYours } from '../sandbox-error.ts';
import type { ClientIdentity } from './client-identity.ts';
import type { SiteBindings } from './site-bindings.ts';
import type { StateMemory } from './state-memory.ts';

/** The device when it is known in the client's region and its site is bound to the client. */
export function deviceIfYours(
  catalog: Catalog,
  bindings: SiteBindings,
  client: ClientIdentity,
  deviceId: string,
): FixtureDevice | undefined {
  const device = catalog.device(deviceId, client.region);
  return device && bindings.isBound(client, device.siteId) ? device : undefined;
}

/**
 * The device, when known in the client's region and its site is bound to the client.
 * @throws SandboxError 404 `NOT_FOUND` otherwise, in the same words whether the device is unknown
 *   or its site is not bound (docs/upstream.md, Errors: existence is not leaked).
 */
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
 * The device of a call about it (submit, status, cancel, history), with one of its slots of the
 * vendor's rate limit taken (docs/upstream.md, Rate limit). A device that is not found or not
 * yours is refused first and spends nothing, so no client spends another partner's budget.
 * @throws SandboxError 404 `NOT_FOUND` as {@link accessibleDevice}; RateLimitError 429 when the
 *   device has no slot left.
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

/**
 * The site, when known in the client's region and bound to the client.
 * @throws SandboxError 404 `NOT_FOUND` otherwise, in the same words either way.
 */
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
