import type { CapabilityRange, Device } from '#domain/device.ts';
import { POWER_CONTROL_PROPERTIES, type PowerControlProperty } from '#domain/power-control.ts';

/** One power control over the devices of a batch. */
export interface CombinedRange {
  property: PowerControlProperty;
  /** The intersection of the supporting devices' ranges, or `null` when none supports it or they do not meet. */
  common: CapabilityRange | null;
  /** The widest span any supporting device accepts (for the input's min/max), or `null`. */
  envelope: CapabilityRange | null;
  supporting: Device[];
  /** Devices without the control: setting it ends `notSupported` there (docs/upstream.md, Lifecycle). */
  lacking: Device[];
}

/**
 * Each control's capability ranges over the selected devices; outside `common`,
 * {@link devicesRefusing} names who refuses (the whole batch fails, docs/upstream.md, Batches).
 */
export function combineRanges(
  devices: readonly Device[],
): Record<PowerControlProperty, CombinedRange> {
  return Object.fromEntries(
    POWER_CONTROL_PROPERTIES.map((property) => {
      const supporting = devices.filter((d) => d.capabilities[property] !== undefined);
      const lacking = devices.filter((d) => d.capabilities[property] === undefined);
      const ranges = supporting.flatMap((d) => {
        const range = d.capabilities[property];
        return range ? [range] : [];
      });
      let common: CapabilityRange | null = null;
      let envelope: CapabilityRange | null = null;
      if (ranges.length > 0) {
        const min = Math.max(...ranges.map((r) => r.min));
        const max = Math.min(...ranges.map((r) => r.max));
        common = min <= max ? { min, max } : null;
        envelope = {
          min: Math.min(...ranges.map((r) => r.min)),
          max: Math.max(...ranges.map((r) => r.max)),
        };
      }
      return [property, { property, common, envelope, supporting, lacking }];
    }),
  ) as Record<PowerControlProperty, CombinedRange>;
}

/** The supporting devices whose capability range does not hold `value` (inclusive ranges). */
export function devicesRefusing(combined: CombinedRange, value: number): Device[] {
  return combined.supporting.filter((device) => {
    const range = device.capabilities[combined.property];
    return range !== undefined && (value < range.min || value > range.max);
  });
}

/** `BAT-1, BAT-2, BAT-3 and 4 more`: device IDs for a sentence, at most `shown` by name. */
export function listDeviceIds(devices: readonly { deviceId: string }[], shown = 5): string {
  const ids = devices.map((d) => d.deviceId);
  return ids.length <= shown
    ? ids.join(', ')
    : `${ids.slice(0, shown).join(', ')} and ${ids.length - shown} more`;
}
