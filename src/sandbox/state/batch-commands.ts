import type { BatchCancelResponse, BatchCancelResult, BatchRequest } from '../../domain/batch.ts';
import { isActiveStatus } from '../../domain/command.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';
import { manuallyCancelled, notCancellable } from './cancellation.ts';
import type { ClientIdentity } from './client-identity.ts';
import { accessibleDevice, unboundError } from './device-access.ts';
import type { BatchEntity, StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';
import { newCommand, newId, refuseEndedWindow, refuseOutOfRange } from './submission-rules.ts';

/**
 * Sends one command to every listed device, all or nothing (spec 2.5, 4; docs/architecture.md,
 * Upstream contract: Batch), and records the batch and its commands in `change`, written in one
 * transaction. Checks, in this order, each over the whole list: unknown devices (404, all listed in
 * `details.deviceIds`), devices of unbound sites (403, likewise), ended window (400), capability
 * range (422, first device in request order). A device whose window overlaps an active command gets
 * a command cancelled at once with `timeWindowOverlap`, `cancelledAt = receivedAt` (spec 3.2).
 */
export function submitBatch(
  memory: StateMemory,
  client: ClientIdentity,
  request: BatchRequest,
  change: StateChange,
): { batch: BatchEntity; commands: CommandEntity[] } {
  const { catalog, bindings, active } = memory;
  const unknown = request.devices.filter((id) => !catalog.device(id, client.region));
  if (unknown.length > 0)
    throw new SandboxError(
      'not_found',
      `devices: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not known in this region; remove them from the batch`,
      { deviceIds: unknown },
    );
  const unbound = request.devices.filter((id) => {
    const device = catalog.device(id, client.region);
    return device !== undefined && !bindings.isBound(client, device.siteId);
  });
  if (unbound.length > 0)
    throw new SandboxError(
      'site_not_bound',
      `devices: ${unbound.join(', ')} belong to sites not bound to this client; bind their sites with POST /sites first`,
      { deviceIds: unbound },
    );
  const nowMs = memory.clock.now();
  refuseEndedWindow(request.command, nowMs);
  for (const deviceId of request.devices)
    refuseOutOfRange(accessibleDevice(catalog, bindings, client, deviceId), request.command);

  const batch: BatchEntity = {
    id: newId('batch_'),
    clientId: client.clientId,
    region: client.region,
    createdAtMs: nowMs,
    deviceIds: request.devices,
  };
  const commands = request.devices.map((deviceId) => {
    const fresh = newCommand(deviceId, request.command, nowMs, batch.id);
    return active.overlapOf(deviceId, request.command)
      ? {
          ...fresh,
          status: 'cancelled' as const,
          cancelledAtMs: nowMs,
          cancelReason: 'timeWindowOverlap' as const,
        }
      : fresh;
  });
  memory.batches.set(batch.id, batch);
  change.batch = batch;
  for (const command of commands) active.put(command, change);
  return { batch, commands };
}

/**
 * Cancels every command of a batch that can be cancelled (spec 2.5, 7), recording them in
 * `change`; one result per device in request order, successes and failures mixed. A device whose
 * site was unbound since fails with `site_not_bound`, a completed or cancelled command with
 * `not_cancellable`; a failure's `status` is the command's status (README "Batch").
 * @throws SandboxError 404 when the batch is unknown to the client (another client's batch too).
 */
export async function cancelBatch(
  memory: StateMemory,
  client: ClientIdentity,
  batchCommandId: string,
  change: StateChange,
): Promise<BatchCancelResponse> {
  const batch = memory.batches.get(batchCommandId);
  if (!batch || batch.clientId !== client.clientId)
    throw new SandboxError(
      'not_found',
      `Batch ${batchCommandId} is not known to this client; use the batchCommandId the batch submission answered`,
      { batchCommandId },
    );
  const stored = new Map(
    (await memory.persistence.batchCommands(batch.id)).map((c) => [c.deviceId, c]),
  );
  // Batches stored before device order was kept have no deviceIds: use the stored commands.
  const deviceIds = batch.deviceIds.length > 0 ? batch.deviceIds : [...stored.keys()];
  const results = deviceIds.map((deviceId): BatchCancelResult => {
    const found = stored.get(deviceId);
    if (!found) throw new Error(`batch ${batch.id} lost the command of ${deviceId}`);
    const command = memory.active.get(found.id) ?? found;
    const base = { deviceId, commandId: command.id };
    const device = memory.catalog.device(command.deviceId, client.region);
    if (!device || !memory.bindings.isBound(client, device.siteId))
      return {
        ...base,
        success: false,
        status: command.status,
        error: unboundError(command.deviceId, device?.siteId).body(),
      };
    if (!isActiveStatus(command.status))
      return {
        ...base,
        success: false,
        status: command.status,
        error: notCancellable(command).body(),
      };
    const cancelled = manuallyCancelled(command, memory.clock.now());
    memory.active.put(cancelled, change);
    return { ...base, success: true, status: cancelled.status };
  });
  return { batchCommandId: batch.id, results };
}
