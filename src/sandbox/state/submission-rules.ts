import { randomBytes } from 'node:crypto';
import type { FixtureDevice } from '../fixtures/fixture-types.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { targetBatteryPowerRangeW } from '../model/device-capability.ts';
import { windowHasEnded } from '#domain/time-window.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { CommandRequest } from '../vendor/schemas.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** src/sandbox/README.md, IDs. */
export const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('base64url')}`;

/** A window that began but has not ended is accepted. @throws SandboxError 400 naming `endTime`. */
export function refuseEndedWindow(command: CommandRequest, nowMs: number): void {
  if (windowHasEnded(command, nowMs))
    throw new SandboxError(
      'INVALID_REQUEST',
      `Invalid body: endTime: the window ends at ${command.endTime}, which has already passed (sandbox time ${iso(nowMs)}); choose an endTime in the future`,
    );
}

/**
 * A control the device lacks passes here and ends `notSupported` at start.
 * @throws SandboxError 422 `CAPABILITY_EXCEEDED` naming the value and the range.
 */
export function refuseOutOfRange(device: FixtureDevice, command: CommandRequest): void {
  const watts = command.powerControl.targetBatteryPowerW;
  if (watts === undefined || device.lacks.includes('targetBatteryPowerW')) return;
  const { min, max } = targetBatteryPowerRangeW(device);
  if (watts >= min && watts <= max) return;
  throw new SandboxError(
    'CAPABILITY_EXCEEDED',
    `Device ${device.deviceId}: targetBatteryPowerW ${watts} is outside the device's range ${min} to ${max} W (maxChargePowerKw ${device.maxChargePowerKw}, maxDischargePowerKw ${device.maxDischargePowerKw}); choose a value inside the range`,
  );
}

export function newCommand(
  deviceId: string,
  command: CommandRequest,
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
