import type { DeviceCommand, StatusRecord } from '../../domain/command.ts';
import { checkCapabilities, type Device } from '../../domain/device.ts';
import type { CapabilityOutOfRangeDetails } from '../../domain/errors.ts';
import { findActiveOverlap } from '../../domain/overlap.ts';
import { toWindowMs, type WindowMs } from '../../domain/time-window.ts';
import type { UpstreamCaller } from './upstream-caller.ts';
import type { OverlapDetails } from './upstream-problem.ts';

/**
 * The commands the BFF knows of a device of the caller's account whose window meets `range`
 * (epoch ms): its read model's (docs/decisions/007-device-call-budget.md, section 3). An overlap
 * refusal is named from these, as a call to the vendor would spend one of the device's budget.
 */
export type KnownCommandSource = (
  caller: UpstreamCaller,
  deviceId: string,
  range: WindowMs,
) => Promise<readonly StatusRecord[]>;

/** The devices of a caller's bound sites by ID, for the ranges a 422 is worded with. */
export type DeviceLookup = (
  caller: UpstreamCaller,
  deviceIds: readonly string[],
) => Promise<ReadonlyMap<string, Device>>;

/** Where a refusal's missing details are looked up; without one, they are left out. */
export interface RefusalSources {
  devices?: DeviceLookup | undefined;
  known?: KnownCommandSource | undefined;
}

/**
 * What the adapter looks up to word a refusal that names neither (vendor-operations.ts, `refine`):
 * the first value outside its device's range of a 422, the command in the way of a 409.
 */
export interface RefusalLookups {
  outOfRange(
    deviceIds: readonly string[],
    command: DeviceCommand,
  ): Promise<CapabilityOutOfRangeDetails | undefined>;
  overlapOf(deviceId: string, command: DeviceCommand): Promise<OverlapDetails | undefined>;
}

/** The lookups of {@link RefusalLookups} for `caller`'s refused change, from `sources`. */
export function refusalLookups(caller: UpstreamCaller, sources: RefusalSources): RefusalLookups {
  return {
    outOfRange: (deviceIds, command) => outOfRange(caller, sources, deviceIds, command),
    overlapOf: (deviceId, command) => overlapOf(caller, sources, deviceId, command),
  };
}

/** The first value outside its device's range among `deviceIds`, when the ranges are known. */
async function outOfRange(
  caller: UpstreamCaller,
  sources: RefusalSources,
  deviceIds: readonly string[],
  command: DeviceCommand,
): Promise<CapabilityOutOfRangeDetails | undefined> {
  if (!sources.devices) return undefined;
  const devices = await sources.devices(caller, deviceIds);
  for (const deviceId of deviceIds) {
    const device = devices.get(deviceId);
    if (!device) continue;
    const violation = checkCapabilities(command.powerControl, device.capabilities).find(
      (v) => v.kind === 'outOfRange',
    );
    if (violation?.kind === 'outOfRange')
      return {
        deviceId,
        property: violation.property,
        value: violation.value,
        min: violation.range.min,
        max: violation.range.max,
      };
  }
  return undefined;
}

/**
 * The command in the way of a submission the vendor refused for overlap (its refusal does not
 * name it): the device's active command whose window overlaps (domain `findActiveOverlap`)
 * among the commands the BFF knows. Never read from the vendor: that read would be a call of
 * the device outside its budget (docs/decisions/007-device-call-budget.md, section 1).
 * Undefined when none is known (made outside powerdeck and not read yet).
 */
async function overlapOf(
  caller: UpstreamCaller,
  sources: RefusalSources,
  deviceId: string,
  command: DeviceCommand,
): Promise<OverlapDetails | undefined> {
  if (!sources.known) return undefined;
  const window = toWindowMs(command);
  const active = findActiveOverlap(window, await sources.known(caller, deviceId, window));
  return active
    ? { conflictingCommandId: active.id, startTime: active.startTime, endTime: active.endTime }
    : undefined;
}
