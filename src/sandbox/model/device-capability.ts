import type { FixtureDevice } from '../fixtures/fixture-types.ts';
import {
  POWER_CONTROL_PROPERTIES,
  type PowerControl,
  type PowerControlProperty,
} from '../vendor/schemas.ts';

/** An inclusive range of a power-control value, in its unit. */
export interface ValueRange {
  min: number;
  max: number;
}

/**
 * The device's range of `targetBatteryPowerW`, in W, from its kW data (docs/upstream.md,
 * Commands): from `-maxChargePowerKw x 1000` (charging) to `+maxDischargePowerKw x 1000`.
 */
export function targetBatteryPowerRangeW(
  device: Pick<FixtureDevice, 'maxChargePowerKw' | 'maxDischargePowerKw'>,
): ValueRange {
  return {
    min: -Math.round(device.maxChargePowerKw * 1000),
    max: Math.round(device.maxDischargePowerKw * 1000),
  };
}

/**
 * The controls of `control` the device does not support (fixture knowledge: the vendor publishes
 * no list). Such a command is accepted and ends `notSupported` at start (docs/upstream.md,
 * Lifecycle).
 */
export function lackedControls(
  device: Pick<FixtureDevice, 'lacks'>,
  control: PowerControl,
): PowerControlProperty[] {
  return POWER_CONTROL_PROPERTIES.filter(
    (property) => control[property] !== undefined && device.lacks.includes(property),
  );
}
