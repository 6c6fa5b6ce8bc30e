import { offsetMinutes, parseUtcOffset } from '#domain/site-clock.ts';
import type { Catalog } from '../fixtures/catalog.ts';
import type { FixtureDevice } from '../fixtures/fixture-types.ts';
import {
  NEAR_CUTOFF_MARGIN_PERCENT,
  OFFLINE_AFTER_END_MS,
  OFFLINE_AFTER_START_MS,
  startConfiguration,
  type Behaviour,
} from '../model/behaviours.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import { householdProfile, seedOf, unitHash } from '../model/household.ts';
import type { DeviceCondition } from '../model/lifecycle.ts';
import {
  advance,
  initialState,
  MINUTE_MS,
  samplesAt,
  type CommandInForce,
  type ConfigurationFrom,
  type DeviceModelInput,
  type FullConfiguration,
  type ModelSample,
  type ModelState,
  type Span,
} from '../model/physics.ts';
import type { DeviceConfigurationEntity } from './persistence.ts';

const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** How far before a fresh start telemetry begins (src/sandbox/README.md, Telemetry model). */
export const HISTORY_BEFORE_START_MS = 6 * HOUR_MS;

/**
 * Where the model starts for a fresh start at `nowMs`: the hour boundary six hours before it, so
 * a chart has a morning to show and the first read of a device steps at most that far plus the
 * sandbox's uptime.
 */
export function modelOriginFor(nowMs: number): number {
  return Math.floor((nowMs - HISTORY_BEFORE_START_MS) / HOUR_MS) * HOUR_MS;
}

/** Times of one device's samples in a range, after gaps: runs of a fixed period. */
interface SampleGrid {
  periodMs: number;
  /** Inclusive runs `[fromMs, toMs]` of sample times, both multiples of `periodMs`. */
  runs: Span[];
  total: number;
}

interface Track {
  /** State at `originMs + k days`, by k. */
  daily: Map<number, ModelState>;
  /** The latest state computed, never past the sandbox's now when computed. */
  frontier: ModelState | undefined;
}

/**
 * What the telemetry of every device is computed from (src/sandbox/README.md, Telemetry model):
 * the model's origin, each device's behaviour, configurations over time, commands in force,
 * spans offline and faulted; and, per device, a cache of model states (one a day and the latest
 * read), so a read steps at most a day plus the page it answers. Nothing ticks: samples are
 * computed when read. Changes reach it from the state's written changes ({@link observeCommand},
 * {@link observeCondition}, {@link observeConfiguration}), each dropping the cached states
 * after the instant it changes.
 */
export class TelemetryStore {
  private originMs = 0;
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly configurations = new Map<string, ConfigurationFrom[]>();
  private readonly commands = new Map<string, Map<string, CommandInForce>>();
  private readonly sortedCommands = new Map<string, CommandInForce[]>();
  private readonly conditions = new Map<string, DeviceCondition>();
  private readonly closedOffline = new Map<string, Span[]>();
  private readonly closedFaults = new Map<string, Span[]>();
  private readonly tracks = new Map<string, Track>();

  constructor(private readonly catalog: Catalog) {}

  get modelOriginMs(): number {
    return this.originMs;
  }

  /** Forgets everything: a fresh start or a reload from the store. */
  adopt(state: {
    originMs: number;
    executedCommands: readonly CommandEntity[];
    conditions: readonly (DeviceCondition & { deviceId: string })[];
    configurations: readonly DeviceConfigurationEntity[];
  }): void {
    this.originMs = state.originMs;
    this.behaviours.clear();
    this.configurations.clear();
    this.commands.clear();
    this.sortedCommands.clear();
    this.conditions.clear();
    this.closedOffline.clear();
    this.closedFaults.clear();
    this.tracks.clear();
    for (const command of state.executedCommands) this.observeCommand(command);
    for (const { deviceId, ...condition } of state.conditions)
      this.conditions.set(deviceId, condition);
    const sorted = [...state.configurations].sort((a, b) => a.fromMs - b.fromMs);
    for (const entity of sorted) this.pushConfiguration(entity);
  }

  behaviourOf(device: FixtureDevice): Behaviour {
    return this.behaviours.get(device.deviceId) ?? device.behaviour ?? 'follows';
  }

  /** Applies to the device's whole telemetry, past included (src/sandbox/README.md, Behaviours). */
  setBehaviour(device: FixtureDevice, behaviour: Behaviour): void {
    this.behaviours.set(device.deviceId, behaviour);
    this.tracks.delete(device.deviceId);
  }

  /** The configuration in force now (the last set, else the behaviour's start). */
  configurationOf(device: FixtureDevice): FullConfiguration {
    const set = this.configurations.get(device.deviceId);
    return set?.at(-1)?.configuration ?? startConfiguration(this.behaviourOf(device));
  }

  /** A command's span in force, from its `startedAt`; one that never started has none. */
  observeCommand(command: CommandEntity): void {
    if (command.startedAtMs === undefined) return;
    const toMs = command.completedAtMs ?? command.cancelledAtMs ?? Infinity;
    let byId = this.commands.get(command.deviceId);
    if (!byId) {
      byId = new Map();
      this.commands.set(command.deviceId, byId);
    }
    const before = byId.get(command.id);
    if (before && before.fromMs === command.startedAtMs && before.toMs === toMs) return;
    byId.set(command.id, {
      fromMs: command.startedAtMs,
      toMs,
      powerControl: command.powerControl,
    });
    this.sortedCommands.delete(command.deviceId);
    // A command that ends (completes, is cancelled) changes nothing before it ends.
    this.dropAfter(
      command.deviceId,
      before && before.fromMs === command.startedAtMs
        ? Math.min(before.toMs, toMs)
        : Math.min(before?.fromMs ?? Infinity, command.startedAtMs),
    );
  }

  /** A device's condition changed at `condition.sinceMs`: closes the spans it ends. */
  observeCondition(deviceId: string, condition: DeviceCondition): void {
    const device = this.catalog.device(deviceId);
    if (!device) return;
    const previous = this.currentCondition(device);
    if (!previous.online && condition.online)
      push(this.closedOffline, deviceId, { fromMs: previous.sinceMs, toMs: condition.sinceMs });
    if (previous.fault && !condition.fault)
      push(this.closedFaults, deviceId, { fromMs: previous.sinceMs, toMs: condition.sinceMs });
    this.conditions.set(deviceId, condition);
    if (previous.fault !== condition.fault) this.dropAfter(deviceId, condition.sinceMs);
  }

  observeConfiguration(entity: DeviceConfigurationEntity): void {
    this.pushConfiguration(entity);
    this.dropAfter(entity.deviceId, entity.fromMs);
  }

  /** The model's input for a device: everything known about it now. */
  modelInput(device: FixtureDevice): DeviceModelInput {
    const behaviour = this.behaviourOf(device);
    const configurations = this.configurationTimeline(device);
    const start = configurations[0].configuration;
    const site = this.catalog.site(device.siteId);
    const offset = parseUtcOffset(site?.timezone ?? 'UTC') ?? '+00:00';
    const seed = seedOf(device.deviceId);
    return {
      household: householdProfile({
        deviceId: device.deviceId,
        siteId: device.siteId,
        utcOffsetMinutes: offsetMinutes(offset),
        pvCapacityKw: device.pvCapacityKw,
      }),
      batteryCapacityKwh: device.batteryCapacityKwh,
      maxChargePowerW: Math.round(device.maxChargePowerKw * 1000),
      maxDischargePowerW: Math.round(device.maxDischargePowerKw * 1000),
      originMs: this.originMs,
      initialSocPercent:
        behaviour === 'nearCutoff'
          ? start.dischargeCutoffSocPercent + NEAR_CUTOFF_MARGIN_PERCENT
          : 55 + Math.round(unitHash(seed, -4) * 30),
      ignoresCommands: behaviour === 'ignoresCommands',
      configurations,
      commands: this.commandsOf(device.deviceId),
      faults: this.faultSpans(device),
    };
  }

  /** Spans without samples, merged and sorted: offline, and a `goesOffline` device's gaps. */
  gaps(device: FixtureDevice): Span[] {
    const spans = [...(this.closedOffline.get(device.deviceId) ?? [])];
    const condition = this.currentCondition(device);
    if (!condition.online) spans.push({ fromMs: condition.sinceMs, toMs: Infinity });
    spans.push(...this.behaviourGaps(device));
    return merge(spans);
  }

  /** The gaps a `goesOffline` device makes around its commands. */
  behaviourGaps(device: FixtureDevice): Span[] {
    if (this.behaviourOf(device) !== 'goesOffline') return [];
    return this.commandsOf(device.deviceId)
      .map((command) => ({
        fromMs: command.fromMs + OFFLINE_AFTER_START_MS,
        toMs: command.toMs + OFFLINE_AFTER_END_MS,
      }))
      .filter((span) => span.toMs > span.fromMs);
  }

  /** Faults over time, the current one open. */
  faultSpans(device: FixtureDevice): Span[] {
    const spans = [...(this.closedFaults.get(device.deviceId) ?? [])];
    const condition = this.currentCondition(device);
    if (condition.fault) spans.push({ fromMs: condition.sinceMs, toMs: Infinity });
    return merge(spans);
  }

  /** The sample times in `[fromMs, toMs]` up to `nowMs`, after the gaps. */
  sampleGrid(device: FixtureDevice, fromMs: number, toMs: number, nowMs: number): SampleGrid {
    const periodMs = this.configurationOf(device).samplingRate * 1000;
    const first = Math.ceil(Math.max(fromMs, this.originMs + periodMs) / periodMs) * periodMs;
    const last = Math.floor(Math.min(toMs, nowMs) / periodMs) * periodMs;
    const runs: Span[] = [];
    let total = 0;
    let cursor = first;
    for (const gap of [...this.gaps(device), { fromMs: Infinity, toMs: Infinity }]) {
      if (cursor > last) break;
      // Sample times before the gap: up to the last multiple below its start.
      const runEnd = Math.min(last, Math.ceil(gap.fromMs / periodMs) * periodMs - periodMs);
      if (runEnd >= cursor) {
        runs.push({ fromMs: cursor, toMs: runEnd });
        total += (runEnd - cursor) / periodMs + 1;
      }
      cursor = Math.max(cursor, Math.ceil(gap.toMs / periodMs) * periodMs);
    }
    return { periodMs, runs, total };
  }

  /** The samples at `times` (from {@link sampleGrid}), at most `nowMs`. */
  samples(
    device: FixtureDevice,
    times: readonly number[],
    periodMs: number,
    nowMs: number,
  ): ModelSample[] {
    const first = times[0];
    if (first === undefined) return [];
    const input = this.modelInput(device);
    const from = this.stateAt(device, input, first - periodMs, nowMs);
    const { samples, lastPeriodStart } = samplesAt(input, from, times, periodMs);
    // Where the last sample's period began: the next latest read starts there or later.
    this.keepFrontier(device.deviceId, lastPeriodStart, nowMs);
    return samples;
  }

  /** The latest sample at or before `nowMs`, or `undefined` when it has sent none. */
  latest(device: FixtureDevice, nowMs: number): ModelSample | undefined {
    const grid = this.sampleGrid(device, this.originMs, nowMs, nowMs);
    const run = grid.runs[grid.runs.length - 1];
    return run && this.samples(device, [run.toMs], grid.periodMs, nowMs)[0];
  }

  /**
   * The model state at minute-aligned `atMs` (at most `nowMs`): from the cached state nearest
   * before it, caching a state at each day boundary crossed.
   */
  stateAt(device: FixtureDevice, input: DeviceModelInput, atMs: number, nowMs: number): ModelState {
    const track = this.trackOf(device.deviceId);
    const day = Math.floor((atMs - this.originMs) / DAY_MS);
    let state: ModelState | undefined;
    for (let k = day; k >= 0 && !state; k -= 1) state = track.daily.get(k);
    state ??= initialState(input);
    if (track.frontier && track.frontier.atMs <= atMs && track.frontier.atMs > state.atMs)
      state = track.frontier;
    while (state.atMs < atMs) {
      const nextDayMs =
        this.originMs + (Math.floor((state.atMs - this.originMs) / DAY_MS) + 1) * DAY_MS;
      const targetMs = Math.min(nextDayMs, atMs);
      state = advance(input, state, targetMs);
      if (targetMs === nextDayMs && targetMs <= nowMs)
        track.daily.set((targetMs - this.originMs) / DAY_MS, state);
    }
    this.keepFrontier(device.deviceId, state, nowMs);
    return state;
  }

  private keepFrontier(deviceId: string, state: ModelState, nowMs: number): void {
    const track = this.trackOf(deviceId);
    if (state.atMs <= nowMs && (!track.frontier || state.atMs > track.frontier.atMs))
      track.frontier = state;
  }

  private trackOf(deviceId: string): Track {
    let track = this.tracks.get(deviceId);
    if (!track) {
      track = { daily: new Map(), frontier: undefined };
      this.tracks.set(deviceId, track);
    }
    return track;
  }

  private dropAfter(deviceId: string, atMs: number): void {
    const track = this.tracks.get(deviceId);
    if (!track) return;
    for (const [k, state] of track.daily) if (state.atMs > atMs) track.daily.delete(k);
    if (track.frontier && track.frontier.atMs > atMs) track.frontier = undefined;
  }

  private currentCondition(device: FixtureDevice): DeviceCondition {
    return (
      this.conditions.get(device.deviceId) ?? { online: device.online, fault: false, sinceMs: 0 }
    );
  }

  private commandsOf(deviceId: string): CommandInForce[] {
    let sorted = this.sortedCommands.get(deviceId);
    if (!sorted) {
      sorted = [...(this.commands.get(deviceId)?.values() ?? [])]
        .filter((command) => command.toMs > command.fromMs)
        .sort((a, b) => a.fromMs - b.fromMs);
      this.sortedCommands.set(deviceId, sorted);
    }
    return sorted;
  }

  private configurationTimeline(
    device: FixtureDevice,
  ): [ConfigurationFrom, ...ConfigurationFrom[]] {
    const set = this.configurations.get(device.deviceId);
    return [
      { fromMs: -Infinity, configuration: startConfiguration(this.behaviourOf(device)) },
      ...(set ?? []),
    ];
  }

  private pushConfiguration(entity: DeviceConfigurationEntity): void {
    const list = this.configurations.get(entity.deviceId) ?? [];
    list.push({ fromMs: entity.fromMs, configuration: entity.configuration });
    this.configurations.set(entity.deviceId, list);
  }
}

function push(map: Map<string, Span[]>, key: string, span: Span): void {
  const list = map.get(key) ?? [];
  list.push(span);
  map.set(key, list);
}

/** Sorted, overlapping or touching spans joined. */
export function merge(spans: readonly Span[]): Span[] {
  const sorted = [...spans].filter((s) => s.toMs > s.fromMs).sort((a, b) => a.fromMs - b.fromMs);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last && span.fromMs <= last.toMs) last.toMs = Math.max(last.toMs, span.toMs);
    else merged.push({ ...span });
  }
  return merged;
}
