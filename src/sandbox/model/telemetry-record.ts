import type { FixtureDevice } from '../fixtures/fixture-types.ts';
import type { DeviceTelemetry, EnergyPoint } from '../vendor/telemetry-schemas.ts';
import { seedOf, unitHash } from './household.ts';
import type { ModelSample, ModelState } from './physics.ts';

const GRID_VOLTAGE_V = 230;
const GRID_FREQUENCY_HZ = 50;

const round = (value: number, digits: number) => {
  const factor = 10 ** digits;
  const rounded = Math.round(value * factor) / factor;
  return rounded === 0 ? 0 : rounded;
};
/** W to kW at the meter's resolution of one watt. */
const kw = (watts: number) => round(watts / 1000, 3);
const kwh = (value: number) => round(value, 3);

/**
 * What the device's counters read at the model's origin: a device installed before the model
 * starts has counted energy already, so the cumulative kWh do not start at zero.
 */
function countersAtOrigin(deviceId: string): ModelState {
  const seed = seedOf(deviceId);
  const base = (index: number, scale: number) => Math.round(unitHash(seed, -10 - index) * scale);
  return {
    atMs: 0,
    socPercent: 0,
    batteryChargeKwh: base(0, 2000),
    batteryDischargeKwh: base(1, 1800),
    gridImportKwh: base(2, 3000),
    gridExportKwh: base(3, 2500),
    pvGenerationKwh: base(4, 6000),
    inverterGenerationKwh: base(5, 5000),
    inverterConsumptionKwh: base(6, 1500),
  };
}

/** Cumulative counters as the device reports them: the model's plus its count at the origin. */
export function reportedCounters(deviceId: string, state: ModelState): ModelState {
  const origin = countersAtOrigin(deviceId);
  return {
    ...state,
    batteryChargeKwh: origin.batteryChargeKwh + state.batteryChargeKwh,
    batteryDischargeKwh: origin.batteryDischargeKwh + state.batteryDischargeKwh,
    gridImportKwh: origin.gridImportKwh + state.gridImportKwh,
    gridExportKwh: origin.gridExportKwh + state.gridExportKwh,
    pvGenerationKwh: origin.pvGenerationKwh + state.pvGenerationKwh,
    inverterGenerationKwh: origin.inverterGenerationKwh + state.inverterGenerationKwh,
    inverterConsumptionKwh: origin.inverterConsumptionKwh + state.inverterConsumptionKwh,
  };
}

/** Per-phase current of `watts` at 230 V, split evenly over the device's phases. */
const phaseCurrentA = (watts: number, phases: number) =>
  round(Math.abs(watts) / (phases * GRID_VOLTAGE_V), 1);

/**
 * The vendor's `DeviceTelemetry` of a model sample (docs/upstream.md, Telemetry): kW at one-watt
 * resolution; `battery.powerKw` and `currentA` positive discharging; `meter.gridPowerKw`
 * positive importing; `inverter.powerKw` = PV + battery, positive generating; `socPercent` a
 * whole percent. A single-phase device leaves out the phase B and C fields (the vendor's "null",
 * which its schema does not allow); no device has third-party PV, so `thirdPartyPv` is left out.
 */
export function toDeviceTelemetry(
  device: Pick<FixtureDevice, 'deviceId' | 'phaseType'>,
  sample: ModelSample,
): DeviceTelemetry {
  const phases = device.phaseType === 'threePhase' ? 3 : 1;
  const counters = reportedCounters(device.deviceId, sample.state);
  const inverterW = sample.pvW + sample.batteryPowerW;
  const soc = sample.state.socPercent;
  const batteryVoltageV = round(380 + 0.4 * soc, 1);
  const seed = seedOf(device.deviceId);
  const phaseFields = (watts: number) => {
    const current = phaseCurrentA(watts, phases);
    return phases === 3
      ? {
          phaseAVoltageV: GRID_VOLTAGE_V,
          phaseBVoltageV: GRID_VOLTAGE_V,
          phaseCVoltageV: GRID_VOLTAGE_V,
          phaseACurrentA: current,
          phaseBCurrentA: current,
          phaseCCurrentA: current,
        }
      : { phaseAVoltageV: GRID_VOLTAGE_V, phaseACurrentA: current };
  };
  return {
    deviceId: device.deviceId,
    timestamp: new Date(sample.atMs).toISOString(),
    meter: {
      gridPowerKw: kw(sample.gridPowerW),
      gridReactivePowerKvar: 0,
      gridFrequencyHz: GRID_FREQUENCY_HZ,
      ...phaseFields(sample.gridPowerW),
      cumulativeGridImportKwh: kwh(counters.gridImportKwh),
      cumulativeGridExportKwh: kwh(counters.gridExportKwh),
    },
    inverter: {
      powerKw: kw(inverterW),
      reactivePowerKvar: 0,
      frequencyHz: GRID_FREQUENCY_HZ,
      ...phaseFields(inverterW),
      cumulativeGenerationKwh: kwh(counters.inverterGenerationKwh),
      cumulativeConsumptionKwh: kwh(counters.inverterConsumptionKwh),
      temperatureC: round(30 + Math.abs(inverterW) / 500, 1),
    },
    battery: {
      socPercent: Math.min(100, Math.max(0, Math.round(soc))),
      sohPercent: 94 + Math.floor(unitHash(seed, -5) * 5),
      voltageV: batteryVoltageV,
      currentA: round(sample.batteryPowerW / batteryVoltageV, 1),
      powerKw: kw(sample.batteryPowerW),
      cumulativeChargeKwh: kwh(counters.batteryChargeKwh),
      cumulativeDischargeKwh: kwh(counters.batteryDischargeKwh),
      temperatureC: round(25 + Math.abs(sample.batteryPowerW) / 1000, 1),
    },
    pv: { powerKw: kw(sample.pvW), cumulativeGenerationKwh: kwh(counters.pvGenerationKwh) },
  };
}

/** An energy point of a period: the model's counters at its end less those at its start. */
export function energyPoint(date: string, start: ModelState, end: ModelState): EnergyPoint {
  const delta = (key: keyof ModelState) => kwh(Math.max(0, end[key] - start[key]));
  return {
    date,
    batteryChargeKwh: delta('batteryChargeKwh'),
    batteryDischargeKwh: delta('batteryDischargeKwh'),
    pvGenerationKwh: delta('pvGenerationKwh'),
    thirdPartyPvGenerationKwh: 0,
    inverterGenerationKwh: delta('inverterGenerationKwh'),
    inverterConsumptionKwh: delta('inverterConsumptionKwh'),
    gridImportKwh: delta('gridImportKwh'),
    gridExportKwh: delta('gridExportKwh'),
  };
}
