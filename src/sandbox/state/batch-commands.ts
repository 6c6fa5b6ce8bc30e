import type { CommandEntity } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';
import { isActiveStatus, type BatchCancelResult, type BatchRequest } from '../vendor/schemas.ts';
import { manuallyCancelled, whyNotCancellable } from './cancellation.ts';
import type { ClientIdentity } from './client-identity.ts';
import { deviceIfYours } from './device-access.ts';
import type { BatchEntity, StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';
import { newCommand, newId, refuseEndedWindow, refuseOutOfRange } from './submission-rules.ts';

/**
 * Sends one command to every listed device (docs/upstream.md, Batches) and records the batch and
 * its commands in `change`, written in one transaction. Refuses the whole batch, creating
 * nothing, for: a device not found or not yours (404, all of them named), an ended window (400),
 * a `targetBatteryPowerW` outside a device's range (422, the first in request order). Otherwise
 * each device succeeds or fails on its own: a device whose window overlaps an active command gets
 * a command cancelled at once with `timeWindowOverlap` (`cancelledAt = receivedAt`); a control a
 * device lacks ends `notSupported` at start; an offline or faulted device ends as the lifecycle
 * says.
 */
export function submitBatch(
  memory: StateMemory,
  client: ClientIdentity,
  request: BatchRequest,
  change: StateChange,
): { batch: BatchEntity; commands: CommandEntity[] } {
  const { catalog, bindings, active } = memory;
  const devices = request.devices.map((id) => ({
    id,
    device: deviceIfYours(catalog, bindings, client, id),
  }));
  const missing = devices.filter(({ device }) => !device).map(({ id }) => id);
  if (missing.length > 0)
    throw new SandboxError(
      'NOT_FOUND',
      `devices: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not found, or their sites are not bound to this client; remove them from the batch or bind their sites first`,
    );
  const nowMs = memory.clock.now();
  refuseEndedWindow(request.command, nowMs);
  for (const { device } of devices) if (device) refuseOutOfRange(device, request.command);

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

/** What a batch cancel did: one result per device in request order. */
export interface BatchCancellation {
  batchCommandId: string;
  results: BatchCancelResult[];
  cancelledCount: number;
  nowMs: number;
}

/**
 * Cancels every command of a batch that can still be cancelled (docs/upstream.md, Batches),
 * recording them in `change`; one result per device in request order, `cancelled` and `failed`
 * mixed. A device whose site was unbound since fails, as does a completed or cancelled command.
 * @throws SandboxError 404 `NOT_FOUND` when the batch is unknown to the client (another client's
 *   batch too); 409 `BATCH_NOT_CANCELLABLE` when every command of the batch is already final.
 */
export async function cancelBatch(
  memory: StateMemory,
  client: ClientIdentity,
  batchCommandId: string,
  change: StateChange,
): Promise<BatchCancellation> {
  const batch = memory.batches.get(batchCommandId);
  if (!batch || batch.clientId !== client.clientId)
    throw new SandboxError(
      'NOT_FOUND',
      `Batch ${batchCommandId} is not found for this client; use the batchCommandId the batch submission answered`,
    );
  const stored = new Map(
    (await memory.persistence.batchCommands(batch.id)).map((c) => [c.deviceId, c]),
  );
  // Batches stored before device order was kept have no deviceIds: use the stored commands.
  const deviceIds = batch.deviceIds.length > 0 ? batch.deviceIds : [...stored.keys()];
  const commands = deviceIds.map((deviceId) => {
    const found = stored.get(deviceId);
    if (!found) throw new Error(`batch ${batch.id} lost the command of ${deviceId}`);
    return memory.active.get(found.id) ?? found;
  });
  if (commands.every((command) => !isActiveStatus(command.status)))
    throw new SandboxError(
      'BATCH_NOT_CANCELLABLE',
      `Batch ${batch.id}: every command of the batch has already completed or been cancelled; nothing is left to cancel`,
    );
  const nowMs = memory.clock.now();
  let cancelledCount = 0;
  const results = commands.map((command): BatchCancelResult => {
    const base = { deviceId: command.deviceId, commandId: command.id };
    if (!deviceIfYours(memory.catalog, memory.bindings, client, command.deviceId))
      return {
        ...base,
        status: 'failed',
        message: `Device ${command.deviceId} is not found, or its site is not bound to this client; its command was not cancelled`,
      };
    if (!isActiveStatus(command.status))
      return { ...base, status: 'failed', message: whyNotCancellable(command) };
    memory.active.put(manuallyCancelled(command, nowMs), change);
    cancelledCount += 1;
    return { ...base, status: 'cancelled', message: 'Command cancelled' };
  });
  return { batchCommandId: batch.id, results, cancelledCount, nowMs };
}
