import type { CapabilityRange, Device } from '../../../domain/device.ts';
import {
  POWER_CONTROL_PROPERTIES,
  type PowerControlProperty,
} from '../../../domain/power-control.ts';

/** One power control over the devices of a batch. */
export interface CombinedRange {
  property: PowerControlProperty;
  /**
   * The values every supporting device accepts: the intersection of their ranges, or `null` when
   * no device supports the control or their ranges do not meet.
   */
  common: CapabilityRange | null;
  /** The widest span any supporting device accepts (for the input's min/max), or `null`. */
  envelope: CapabilityRange | null;
  /** Devices that support the control. */
  supporting: Device[];
  /**
   * Devices without the control: a command setting it ends `notSupported` there
   * (docs/upstream.md, Lifecycle).
   */
  lacking: Device[];
}

/**
 * Capability ranges of each power control combined over the selected devices. A value inside
 * `common` fits every device that supports the control; outside it, {@link devicesRefusing} names
 * the devices whose range it leaves (the upstream refuses the whole batch then, docs/upstream.md,
 * Batches). Controls a device lacks are not range errors but a `notSupported` pre-check.
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
