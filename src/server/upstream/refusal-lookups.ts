import type { DeviceCommand, StatusRecord } from '#domain/command.ts';
import { checkCapabilities, type Device } from '#domain/device.ts';
import type { CapabilityOutOfRangeDetails } from '#domain/errors.ts';
import { findActiveOverlap } from '#domain/overlap.ts';
import { toWindowMs, type WindowMs } from '#domain/time-window.ts';
import type { UpstreamCaller } from './upstream-caller.ts';
import type { OverlapDetails } from './upstream-problem.ts';

/**
 * The read model's commands of a device whose window meets `range` (epoch ms): an overlap refusal
 * is named from these rather than a vendor call (decision 007, section 3).
 */
export type KnownCommandSource = (
  caller: UpstreamCaller,
  deviceId: string,
  range: WindowMs,
) => Promise<readonly StatusRecord[]>;

export type DeviceLookup = (
  caller: UpstreamCaller,
  deviceIds: readonly string[],
) => Promise<ReadonlyMap<string, Device>>;

/** Without one, a refusal's missing details are left out. */
export interface RefusalSources {
  devices?: DeviceLookup | undefined;
  known?: KnownCommandSource | undefined;
}

/** What the adapter looks up to word a refusal that names neither (vendor-operations.ts, `refine`). */
export interface RefusalLookups {
  outOfRange(
    deviceIds: readonly string[],
    command: DeviceCommand,
  ): Promise<CapabilityOutOfRangeDetails | undefined>;
  overlapOf(deviceId: string, command: DeviceCommand): Promise<OverlapDetails | undefined>;
}

export function refusalLookups(caller: UpstreamCaller, sources: RefusalSources): RefusalLookups {
  return {
    outOfRange: (deviceIds, command) => outOfRange(caller, sources, deviceIds, command),
    overlapOf: (deviceId, command) => overlapOf(caller, sources, deviceId, command),
  };
}

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
 * Never read from the vendor: that read would be a call outside the device's budget (decision 007,
 * section 1). Undefined when none is known.
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
