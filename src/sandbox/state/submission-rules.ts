import { randomBytes } from 'node:crypto';
import type { DeviceCommand } from '../../domain/command.ts';
import { checkCapabilities, describeViolation } from '../../domain/device.ts';
import type { FixtureDevice } from '../fixtures/fixture-types.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { SandboxError } from '../sandbox-error.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A new ID: `prefix` + 16 random base64url characters (README "IDs": `cmd_` for commands,
 * `batch_` for batches).
 */
export const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('base64url')}`;

/**
 * Refuses a window that has already ended at `nowMs` (epoch ms, sandbox clock; README "Submit",
 * "Batch"); a window that began already but has not ended is accepted and starts at once.
 * @throws SandboxError 400 `invalid_request` naming `endTime`.
 */
export function refuseEndedWindow(command: DeviceCommand, nowMs: number): void {
  if (Date.parse(command.endTime) <= nowMs)
    throw new SandboxError(
      'invalid_request',
      `endTime: the window ends at ${command.endTime}, which has already passed (sandbox time ${iso(nowMs)}); choose an endTime in the future`,
      { where: 'body', issues: [{ field: 'endTime', message: 'endTime has already passed' }] },
    );
}

/**
 * Refuses a power control value outside the device's capability range (spec 2.2). A control the
 * device lacks passes here; the command ends `notSupported` at start (README "Submit").
 * @throws SandboxError 422 `capability_out_of_range` with the first violation in `details`
 *   (`deviceId, property, value, min, max`); the message lists them all.
 */
export function refuseOutOfRange(device: FixtureDevice, command: DeviceCommand): void {
  const outOfRange = checkCapabilities(command.powerControl, device.capabilities).filter(
    (violation) => violation.kind === 'outOfRange',
  );
  const [first] = outOfRange;
  if (first?.kind !== 'outOfRange') return;
  throw new SandboxError(
    'capability_out_of_range',
    `Device ${device.deviceId}: ${outOfRange.map(describeViolation).join('; ')}; choose a value inside the range`,
    {
      deviceId: device.deviceId,
      property: first.property,
      value: first.value,
      min: first.range.min,
      max: first.range.max,
    },
  );
}

/** A fresh `received` command (spec 3.1 row 1), received at `nowMs`, of a batch or not. */
export function newCommand(
  deviceId: string,
  command: DeviceCommand,
  nowMs: number,
  batchCommandId?: string,
): CommandEntity {
  return {
    id: newId('cmd_'),
    deviceId,
    batchCommandId,
    powerControl: command.powerControl,
    startMs: Date.parse(command.startTime),
    endMs: Date.parse(command.endTime),
    status: 'received',
    receivedAtMs: nowMs,
  };
}
