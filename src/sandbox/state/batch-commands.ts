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

export type RateLimitedDevice = Extract<DeviceCallOutcome, { admitted: false }>;

const isRefused = (outcome: DeviceCallOutcome): outcome is RateLimitedDevice => !outcome.admitted;

/**
 * @throws RateLimitError 429 when every device is refused, naming the one whose slot frees last,
 *   so retrying after its `Retry-After` finds every device free.
 */
export function takeBatchSlots(
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

export function rateLimitedWords(
  limit: DeviceCallLimit,
  device: RateLimitedDevice,
  nowMs: number,
): string {
  return `${device.deviceId} (rate limit: ${limit.perMinute} requests per minute per device; retry after ${secondsUntil(device.retryAtMs, nowMs)} s)`;
}

export interface BatchSubmission {
  batch: BatchEntity;
  commands: CommandEntity[];
  /** Left out of the batch: no command. */
  rateLimited: RateLimitedDevice[];
}

/**
 * docs/upstream.md, Batches. Refuses the whole batch for a device not found or not yours (404,
 * spending no slot), every device over the limit (429), an ended window (400), an out-of-range
 * power (422); otherwise a device over the limit is left out and an overlapping window gets a
 * command cancelled at once with `timeWindowOverlap`.
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

export interface BatchCancellation {
  batchCommandId: string;
  results: BatchCancelResult[];
  cancelledCount: number;
  nowMs: number;
}

/**
 * A batch cancel takes a slot of each device still the client's (docs/upstream.md, Rate limit).
 * @throws SandboxError 404 unknown to the client, 429 when every device is over the limit, 409
 *   `BATCH_NOT_CANCELLABLE` when every command is already final.
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
