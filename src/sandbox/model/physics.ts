import type { PowerControl } from '../vendor/schemas.ts';
import type { DeviceConfiguration } from '../vendor/telemetry-schemas.ts';
import { loadW, pvAvailableW, type HouseholdProfile } from './household.ts';

/**
 * The sandbox's physical model of one battery and its household (src/sandbox/README.md,
 * Telemetry model). Pure: the same input gives the same samples. Powers in W, positive battery
 * power discharges (the sign of `targetBatteryPowerW`), positive grid power imports; for every
 * stretch of time
 *
 *   gridPowerW = loadW - pvW - batteryPowerW                       (energy balance)
 *   socPercent(t + dt) = socPercent(t) - batteryPowerW x dt / (36,000 x capacityKwh)   (lossless)
 *
 * The model steps a minute at a time from a state (a checkpoint), splitting a minute where a
 * command, a fault or a configuration begins or ends, so energy integrates exactly. A sample at
 * `t` carries the state of charge at `t` and the mean powers over the sampling period before it.
 */

export const MINUTE_MS = 60_000;

/**
 * Self-consumption discharges only down to this state of charge (or the discharge cut-off when
 * higher), keeping the rest for dispatch, as a virtual power plant's contract does; commands may
 * go down to the cut-off.
 */
export const SELF_CONSUMPTION_RESERVE_PERCENT = 50;

export type FullConfiguration = Required<DeviceConfiguration>;

/** A span of time, `[fromMs, toMs)`; `toMs` may be `Infinity` (still going). */
export interface Span {
  fromMs: number;
  toMs: number;
}

/** A command while it executes (its `startedAt` to its `completedAt` or `cancelledAt`). */
export interface CommandInForce extends Span {
  powerControl: PowerControl;
}

/** A configuration from `fromMs` until the next one. */
export interface ConfigurationFrom {
  fromMs: number;
  configuration: FullConfiguration;
}

export interface DeviceModelInput {
  household: HouseholdProfile;
  batteryCapacityKwh: number;
  maxChargePowerW: number;
  maxDischargePowerW: number;
  /** Minute-aligned instant where the model starts, with `initialSocPercent`. */
  originMs: number;
  initialSocPercent: number;
  /** `ignoresCommands`: the battery keeps to its configuration whatever the command. */
  ignoresCommands: boolean;
  /** Sorted by `fromMs`; the first applies from the origin whatever its `fromMs`. */
  configurations: readonly [ConfigurationFrom, ...ConfigurationFrom[]];
  /** Sorted, not overlapping. */
  commands: readonly CommandInForce[];
  /** Spans of a fault: the battery stands still. Sorted. */
  faults: readonly Span[];
}

/** Where the model stands at a minute boundary: the state of charge and cumulative kWh. */
export interface ModelState {
  atMs: number;
  socPercent: number;
  batteryChargeKwh: number;
  batteryDischargeKwh: number;
  gridImportKwh: number;
  gridExportKwh: number;
  pvGenerationKwh: number;
  inverterGenerationKwh: number;
  inverterConsumptionKwh: number;
}

/** Mean powers over `[atMs - periodMs, atMs)`, and the state at `atMs`. */
export interface ModelSample {
  atMs: number;
  periodMs: number;
  loadW: number;
  pvW: number;
  batteryPowerW: number;
  gridPowerW: number;
  state: ModelState;
}

/** The state at the origin: cumulative counters start at zero. */
export function initialState(input: DeviceModelInput): ModelState {
  return {
    atMs: input.originMs,
    socPercent: input.initialSocPercent,
    batteryChargeKwh: 0,
    batteryDischargeKwh: 0,
    gridImportKwh: 0,
    gridExportKwh: 0,
    pvGenerationKwh: 0,
    inverterGenerationKwh: 0,
    inverterConsumptionKwh: 0,
  };
}

/** What is in force over a stretch: the configuration, the command (if any), a fault. */
interface Regime {
  configuration: FullConfiguration;
  command: PowerControl | undefined;
  faulted: boolean;
}

/** Forward-only lookups of what is in force, and of the next instant it may change. */
class RegimeCursor {
  private commandIndex = 0;
  private faultIndex = 0;
  private configurationIndex = 0;
  private configuration: FullConfiguration;

  constructor(private readonly input: DeviceModelInput) {
    this.configuration = input.configurations[0].configuration;
  }

  at(atMs: number): Regime {
    const { commands, faults, configurations } = this.input;
    let command = commands[this.commandIndex];
    while (command && command.toMs <= atMs) command = commands[(this.commandIndex += 1)];
    let fault = faults[this.faultIndex];
    while (fault && fault.toMs <= atMs) fault = faults[(this.faultIndex += 1)];
    let next = configurations[this.configurationIndex + 1];
    while (next && next.fromMs <= atMs) {
      this.configuration = next.configuration;
      this.configurationIndex += 1;
      next = configurations[this.configurationIndex + 1];
    }
    return {
      configuration: this.configuration,
      command: command && command.fromMs <= atMs ? command.powerControl : undefined,
      faulted: fault !== undefined && fault.fromMs <= atMs,
    };
  }

  /** The first instant after `atMs` at which {@link at} may answer differently. */
  nextChange(atMs: number): number {
    let next = Infinity;
    const command = this.input.commands[this.commandIndex];
    if (command) next = Math.min(next, command.fromMs > atMs ? command.fromMs : command.toMs);
    const fault = this.input.faults[this.faultIndex];
    if (fault) next = Math.min(next, fault.fromMs > atMs ? fault.fromMs : fault.toMs);
    const configuration = this.input.configurations[this.configurationIndex + 1];
    if (configuration) next = Math.min(next, configuration.fromMs);
    return next;
  }
}

/** The battery's power and the PV actually used over `dtS` seconds, in W. */
export interface PowerDecision {
  batteryPowerW: number;
  pvW: number;
  /** The state of charge stopped at this cut-off within the stretch, if it did. */
  stoppedAtSocPercent?: number;
}

/**
 * What the battery does for `dtS` seconds at state of charge `socPercent` with household `load`
 * and `pvAvailable` watts, under `regime`:
 * 1. the target: the command's `targetBatteryPowerW`; without one (or ignoring commands) the
 *    operation mode: `selfConsumption` covers load minus PV (discharging only down to
 *    {@link SELF_CONSUMPTION_RESERVE_PERCENT}), `backupMode` only charges from surplus PV,
 *    `feedInPriority` stands still; a fault stands still;
 * 2. clipped to the battery's charge and discharge power;
 * 3. a discharge capped so the meter exports at most the export limit, a charge so it imports at
 *    most the import limit (the command's, else the configuration's);
 * 4. stopped at the charge and discharge cut-offs (the command's, else the configuration's):
 *    the energy left to a cut-off bounds the mean power of the stretch;
 * 5. PV curtailed where the meter would still export more than the export limit.
 * The household's own import beyond the import limit is not the battery's: it is not curtailed.
 */
export function decidePower(
  input: Pick<
    DeviceModelInput,
    'batteryCapacityKwh' | 'maxChargePowerW' | 'maxDischargePowerW' | 'ignoresCommands'
  >,
  regime: Regime,
  load: number,
  pvAvailable: number,
  socPercent: number,
  dtS: number,
): PowerDecision {
  const { configuration } = regime;
  const command = input.ignoresCommands ? undefined : regime.command;
  const net = load - pvAvailable;
  const chargeCutoff = command?.chargeCutoffSocPercent ?? configuration.chargeCutoffSocPercent;
  const dischargeCutoff =
    command?.dischargeCutoffSocPercent ?? configuration.dischargeCutoffSocPercent;
  const importLimit = command?.siteImportLimitW ?? configuration.siteImportLimitW;
  const exportLimit = command?.siteExportLimitW ?? configuration.siteExportLimitW;

  let target: number;
  let floor = dischargeCutoff;
  if (regime.faulted) target = 0;
  else if (command?.targetBatteryPowerW !== undefined) target = command.targetBatteryPowerW;
  else if (configuration.operationMode === 'selfConsumption') {
    target = net;
    floor = Math.max(dischargeCutoff, SELF_CONSUMPTION_RESERVE_PERCENT);
  } else if (configuration.operationMode === 'backupMode') target = Math.min(0, net);
  else target = 0;

  let power = Math.min(Math.max(target, -input.maxChargePowerW), input.maxDischargePowerW);
  if (power > 0) power = Math.min(power, Math.max(0, net + exportLimit));
  if (power < 0) power = Math.max(power, Math.min(0, net - importLimit));

  let stoppedAtSocPercent: number | undefined;
  const whPerPercent = input.batteryCapacityKwh * 10;
  if (power > 0) {
    const maxW = ((socPercent - floor) * whPerPercent * 3600) / dtS;
    if (maxW <= power) {
      power = Math.max(0, maxW);
      stoppedAtSocPercent = Math.min(socPercent, floor);
    }
  } else if (power < 0) {
    const maxW = ((chargeCutoff - socPercent) * whPerPercent * 3600) / dtS;
    if (maxW <= -power) {
      power = -Math.max(0, maxW);
      stoppedAtSocPercent = Math.max(socPercent, chargeCutoff);
    }
  }

  let pv = pvAvailable;
  const grid = load - pv - power;
  if (grid < -exportLimit) pv = Math.max(0, pv - (-exportLimit - grid));
  return stoppedAtSocPercent === undefined
    ? { batteryPowerW: power, pvW: pv }
    : { batteryPowerW: power, pvW: pv, stoppedAtSocPercent };
}

interface Sums {
  loadWs: number;
  pvWs: number;
  batteryWs: number;
  gridWs: number;
}

const WS_PER_KWH = 3_600_000;

/**
 * Steps the model from `from` (minute-aligned) to `toMs` (minute-aligned, not before), calling
 * `onMinuteEnd` after each minute with the minute's energy sums (watt-seconds). Returns the state
 * at `toMs`; `from` is not changed.
 */
export function advance(
  input: DeviceModelInput,
  from: ModelState,
  toMs: number,
  onMinuteEnd?: (state: ModelState, sums: Sums) => void,
): ModelState {
  const state = { ...from };
  const cursor = new RegimeCursor(input);
  const sums: Sums = { loadWs: 0, pvWs: 0, batteryWs: 0, gridWs: 0 };
  while (state.atMs < toMs) {
    const minuteMs = state.atMs;
    const endMs = minuteMs + MINUTE_MS;
    const load = loadW(input.household, minuteMs);
    const pvAvailable = pvAvailableW(input.household, minuteMs);
    sums.loadWs = 0;
    sums.pvWs = 0;
    sums.batteryWs = 0;
    sums.gridWs = 0;
    let atMs = minuteMs;
    while (atMs < endMs) {
      const regime = cursor.at(atMs);
      const nextMs = Math.min(endMs, cursor.nextChange(atMs));
      const dtS = (nextMs - atMs) / 1000;
      const decision = decidePower(input, regime, load, pvAvailable, state.socPercent, dtS);
      const power = decision.batteryPowerW;
      const grid = load - decision.pvW - power;
      const inverter = decision.pvW + power;
      state.socPercent =
        decision.stoppedAtSocPercent ??
        state.socPercent - (power * dtS) / (36_000 * input.batteryCapacityKwh);
      state.batteryDischargeKwh += (Math.max(0, power) * dtS) / WS_PER_KWH;
      state.batteryChargeKwh += (Math.max(0, -power) * dtS) / WS_PER_KWH;
      state.gridImportKwh += (Math.max(0, grid) * dtS) / WS_PER_KWH;
      state.gridExportKwh += (Math.max(0, -grid) * dtS) / WS_PER_KWH;
      state.pvGenerationKwh += (decision.pvW * dtS) / WS_PER_KWH;
      state.inverterGenerationKwh += (Math.max(0, inverter) * dtS) / WS_PER_KWH;
      state.inverterConsumptionKwh += (Math.max(0, -inverter) * dtS) / WS_PER_KWH;
      sums.loadWs += load * dtS;
      sums.pvWs += decision.pvW * dtS;
      sums.batteryWs += power * dtS;
      sums.gridWs += grid * dtS;
      atMs = nextMs;
    }
    state.atMs = endMs;
    onMinuteEnd?.(state, sums);
  }
  return state;
}

/**
 * The samples at `times` (sorted, each a multiple of `periodMs`, at least `periodMs` after
 * `from.atMs`), stepping from `from`. Returns them and the state where the last one's period
 * began (`lastPeriodStart`), from which a later read of the same or a later sample steps.
 */
export function samplesAt(
  input: DeviceModelInput,
  from: ModelState,
  times: readonly number[],
  periodMs: number,
): { samples: ModelSample[]; lastPeriodStart: ModelState } {
  const samples: ModelSample[] = [];
  const lastMs = times[times.length - 1];
  if (lastMs === undefined) return { samples, lastPeriodStart: from };
  let lastPeriodStart = from;
  let index = 0;
  const period: Sums = { loadWs: 0, pvWs: 0, batteryWs: 0, gridWs: 0 };
  advance(input, from, lastMs, (state, sums) => {
    if (state.atMs === lastMs - periodMs) lastPeriodStart = { ...state };
    if ((state.atMs - MINUTE_MS) % periodMs === 0) {
      period.loadWs = 0;
      period.pvWs = 0;
      period.batteryWs = 0;
      period.gridWs = 0;
    }
    period.loadWs += sums.loadWs;
    period.pvWs += sums.pvWs;
    period.batteryWs += sums.batteryWs;
    period.gridWs += sums.gridWs;
    if (state.atMs !== times[index]) return;
    const seconds = periodMs / 1000;
    samples.push({
      atMs: state.atMs,
      periodMs,
      loadW: period.loadWs / seconds,
      pvW: period.pvWs / seconds,
      batteryPowerW: period.batteryWs / seconds,
      gridPowerW: period.gridWs / seconds,
      state: { ...state },
    });
    index += 1;
  });
  return { samples, lastPeriodStart };
}
