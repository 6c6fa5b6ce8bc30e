import type { CommandEntity } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';
import { isActiveStatus, type BatchCancelResult, type BatchRequest } from '../vendor/schemas.ts';
import { manuallyCancelled, whyNotCancellable } from './cancellation.ts';
import type { ClientIdentity } from './client-identity.ts';
import { deviceIfYours } from './device-access.ts';
import { secondsUntil, type DeviceCallLimit, type DeviceCallOutcome } from './device-call-limit.ts';
import type { BatchEntity, StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';
import { newCommand, newId, refuseEndedWindow, refuseOutOfRange } from './submission-rules.ts';

/** A device the rate limit refused, with when its next slot frees (epoch ms, sandbox clock). */
export type RateLimitedDevice = Extract<DeviceCallOutcome, { admitted: false }>;

const isRefused = (outcome: DeviceCallOutcome): outcome is RateLimitedDevice => !outcome.admitted;

/**
 * Takes a slot of the rate limit for each device of a batch call, once per device
 * (docs/upstream.md, Rate limit), and returns those refused.
 * @throws RateLimitError 429 when every device is refused: nothing of the call could go. It names
 *   the device whose slot frees last, so retrying after its `Retry-After` finds every device free.
 */
function takeBatchSlots(
  memory: StateMemory,
  client: ClientIdentity,
  deviceIds: readonly string[],
  nowMs: number,
): RateLimitedDevice[] {
  const refused = memory.deviceCalls.take(client.region, deviceIds, nowMs).filter(isRefused);
  if (refused.length > 0 && refused.length === deviceIds.length) {
    const last = refused.reduce((a, b) => (b.retryAtMs > a.retryAtMs ? b : a));
    throw memory.deviceCalls.refusal(
      last,
      nowMs,
      refused.filter((device) => device !== last).map((device) => device.deviceId),
    );
  }
  return refused;
}

/**
 * A device a batch call left out under the rate limit, in words: its ID, the limit and the whole
 * seconds until its next slot.
 */
export function rateLimitedWords(
  limit: DeviceCallLimit,
  device: RateLimitedDevice,
  nowMs: number,
): string {
  return `${device.deviceId} (rate limit: ${limit.perMinute} requests per minute per device; retry after ${secondsUntil(device.retryAtMs, nowMs)} s)`;
}

/** What a batch submission did. */
export interface BatchSubmission {
  batch: BatchEntity;
  /** The commands sent, one per device of {@link BatchEntity.deviceIds}, in request order. */
  commands: CommandEntity[];
  /** Devices of the request left out under the rate limit: no command, not in the batch. */
  rateLimited: RateLimitedDevice[];
}

/**
 * Sends one command to every listed device (docs/upstream.md, Batches) and records the batch and
 * its commands in `change`, written in one transaction. Refuses the whole batch, creating
 * nothing, for: a device not found or not yours (404, all of them named; spends no slot), every
 * device over the rate limit (429), an ended window (400), a `targetBatteryPowerW` outside a
 * device's range (422, the first in request order). Otherwise each device succeeds or fails on
 * its own: a device over the rate limit is left out of the batch (no command; the answer's
 * message names it; docs/upstream.md, Rate limit); a device whose window overlaps an active
 * command gets a command cancelled at once with `timeWindowOverlap` (`cancelledAt = receivedAt`);
 * a control a device lacks ends `notSupported` at start; an offline or faulted device ends as the
 * lifecycle says.
 */
export function submitBatch(
  memory: StateMemory,
  client: ClientIdentity,
  request: BatchRequest,
  change: StateChange,
): BatchSubmission {
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
  const rateLimited = takeBatchSlots(memory, client, request.devices, nowMs);
  refuseEndedWindow(request.command, nowMs);
  for (const { device } of devices) if (device) refuseOutOfRange(device, request.command);

  const leftOut = new Set(rateLimited.map((device) => device.deviceId));
  const batch: BatchEntity = {
    id: newId('batch_'),
    clientId: client.clientId,
    region: client.region,
    createdAtMs: nowMs,
    deviceIds: request.devices.filter((deviceId) => !leftOut.has(deviceId)),
  };
  const commands = batch.deviceIds.map((deviceId) => {
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
  return { batch, commands, rateLimited };
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
 * mixed. A device whose site was unbound since fails (spending no slot), as does a completed or
 * cancelled command, and a device over the rate limit (docs/upstream.md, Rate limit: a batch
 * cancel takes a slot of each device of the batch still the client's).
 * @throws SandboxError 404 `NOT_FOUND` when the batch is unknown to the client (another client's
 *   batch too); RateLimitError 429 when every such device is over the rate limit; 409
 *   `BATCH_NOT_CANCELLABLE` when every command of the batch is already final.
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
  const nowMs = memory.clock.now();
  const yours = commands.filter((command) =>
    deviceIfYours(memory.catalog, memory.bindings, client, command.deviceId),
  );
  const rateLimited = new Map(
    takeBatchSlots(
      memory,
      client,
      yours.map((command) => command.deviceId),
      nowMs,
    ).map((device) => [device.deviceId, device]),
  );
  if (commands.every((command) => !isActiveStatus(command.status)))
    throw new SandboxError(
      'BATCH_NOT_CANCELLABLE',
      `Batch ${batch.id}: every command of the batch has already completed or been cancelled; nothing is left to cancel`,
    );
  let cancelledCount = 0;
  const results = commands.map((command): BatchCancelResult => {
    const base = { deviceId: command.deviceId, commandId: command.id };
    if (!yours.includes(command))
      return {
        ...base,
        status: 'failed',
        message: `Device ${command.deviceId} is not found, or its site is not bound to this client; its command was not cancelled`,
      };
    const limited = rateLimited.get(command.deviceId);
    if (limited)
      return {
        ...base,
        status: 'failed',
        message: `Not cancelled: device ${rateLimitedWords(memory.deviceCalls, limited, nowMs)}; cancel the batch again then`,
      };
    if (!isActiveStatus(command.status))
      return { ...base, status: 'failed', message: whyNotCancellable(command) };
    memory.active.put(manuallyCancelled(command, nowMs), change);
    cancelledCount += 1;
    return { ...base, status: 'cancelled', message: 'Command cancelled' };
  });
  return { batchCommandId: batch.id, results, cancelledCount, nowMs };
}
