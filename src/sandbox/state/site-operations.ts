import type { Device, Site } from '../../domain/device.ts';
import type { FixtureSite } from '../fixtures/fixture-types.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { ClientIdentity } from './client-identity.ts';
import type { DeviceConditions } from './device-conditions.ts';
import type { StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';

/** The sites bound to the client, in bind order (spec 2.7, 4). */
export function listSites(memory: StateMemory, client: ClientIdentity): Site[] {
  return memory.bindings
    .siteIdsInBindOrder(client.clientId)
    .map((siteId) => memory.catalog.site(siteId, client.region))
    .filter((site): site is FixtureSite => site !== undefined)
    .map((site) => toSite(site, memory.conditions));
}

/**
 * Binds a site of the client's region to the client (spec 2.7, 5 rule 5) and records the new
 * binding in `change`; `created` is false when it was bound already.
 * @throws SandboxError 404 `not_found` when the site is unknown in the client's region.
 */
export function bindSite(
  memory: StateMemory,
  client: ClientIdentity,
  siteId: string,
  change: StateChange,
): { site: Site; created: boolean } {
  const site = memory.catalog.site(siteId, client.region);
  if (!site)
    throw new SandboxError(
      'not_found',
      `Site ${siteId} is not known in this region; check the Plant ID in the vendor's app`,
      { siteId },
    );
  const binding = memory.bindings.bind(client.clientId, siteId);
  if (binding) change.bindings.push(binding);
  return { site: toSite(site, memory.conditions), created: binding !== undefined };
}

/**
 * Unbinds a site and records it in `change`; its devices and their commands then answer 403
 * (spec 5 rule 5).
 * @throws SandboxError 404 `not_found` when the site is not bound to the client.
 */
export function unbindSite(
  memory: StateMemory,
  client: ClientIdentity,
  siteId: string,
  change: StateChange,
): void {
  if (!memory.bindings.unbind(client.clientId, siteId))
    throw new SandboxError(
      'not_found',
      `Site ${siteId} is not bound to this client; GET /sites lists the bound sites`,
      { siteId },
    );
  change.unbindings.push({ clientId: client.clientId, siteId });
}

/** A fixture site as the API shows it; each device's `online` is its current condition. */
function toSite(site: FixtureSite, conditions: DeviceConditions): Site {
  return {
    siteId: site.siteId,
    name: site.name,
    timeZone: site.timeZone,
    devices: site.devices.map((device): Device => ({
      deviceId: device.deviceId,
      name: device.name,
      model: device.model,
      capabilities: device.capabilities,
      online: conditions.of(device).online,
    })),
  };
}
