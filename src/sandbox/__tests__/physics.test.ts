import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../fixtures/catalog.ts';
import { DEMO_FIXTURE } from '../fixtures/demo-fixture.ts';
import { FLEET_FIXTURE } from '../fixtures/fleet-fixture.ts';
import {
  BEHAVIOURS,
  DEFAULT_CONFIGURATION,
  fleetBehaviour,
  NEAR_CUTOFF_MARGIN_PERCENT,
  OFFLINE_AFTER_END_MS,
  OFFLINE_AFTER_START_MS,
  SITE_LIMITED_EXPORT_W,
  type Behaviour,
} from '../model/behaviours.ts';
import { householdProfile, loadW, pvAvailableW } from '../model/household.ts';
import {
  initialState,
  samplesAt,
  SELF_CONSUMPTION_RESERVE_PERCENT,
  type CommandInForce,
  type DeviceModelInput,
  type FullConfiguration,
  type ModelSample,
} from '../model/physics.ts';
import { TelemetryStore } from '../state/telemetry-store.ts';
import type { PowerControl } from '../vendor/schemas.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const ORIGIN_MS = Date.parse('2030-06-01T00:00:00.000Z');
const EPSILON = 1e-6;

function modelInput(overrides: Partial<DeviceModelInput> = {}): DeviceModelInput {
  return {
    household: householdProfile({
      deviceId: 'BAT-TEST-01',
      siteId: 'PLANT-TEST',
      utcOffsetMinutes: 60,
      pvCapacityKw: 12,
    }),
    batteryCapacityKwh: 20,
    maxChargePowerW: 5_000,
    maxDischargePowerW: 5_000,
    originMs: ORIGIN_MS,
    initialSocPercent: 60,
    ignoresCommands: false,
    configurations: [{ fromMs: -Infinity, configuration: DEFAULT_CONFIGURATION }],
    commands: [],
    faults: [],
    ...overrides,
  };
}

/** Every sample of `[origin + period, origin + minutes]`. */
function run(input: DeviceModelInput, minutes: number, periodMs = MINUTE_MS): ModelSample[] {
  const times: number[] = [];
  for (let t = ORIGIN_MS + periodMs; t <= ORIGIN_MS + minutes * MINUTE_MS; t += periodMs)
    times.push(t);
  return samplesAt(input, initialState(input), times, periodMs).samples;
}

/** The value, failing the test when it is missing. */
function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('expected a value');
  return value;
}

const inForceAt = (commands: readonly CommandInForce[], atMs: number) =>
  commands.find((c) => c.fromMs <= atMs && atMs < c.toMs);

/** Minute-aligned commands over 12 hours, not overlapping, each with some controls. */
const commandsArbitrary: fc.Arbitrary<CommandInForce[]> = fc
  .array(
    fc.record({
      gapMin: fc.integer({ min: 0, max: 120 }),
      durationMin: fc.integer({ min: 1, max: 180 }),
      control: fc.record(
        {
          targetBatteryPowerW: fc.integer({ min: -5_000, max: 5_000 }),
          chargeCutoffSocPercent: fc.integer({ min: 5, max: 100 }),
          dischargeCutoffSocPercent: fc.integer({ min: 5, max: 100 }),
          siteImportLimitW: fc.integer({ min: 0, max: 65_535 }),
          siteExportLimitW: fc.integer({ min: 0, max: 65_535 }),
        },
        { requiredKeys: [] },
      ),
    }),
    { maxLength: 5 },
  )
  .map((specs) => {
    let atMs = ORIGIN_MS;
    return specs.map(({ gapMin, durationMin, control }) => {
      const fromMs = atMs + gapMin * MINUTE_MS;
      atMs = fromMs + durationMin * MINUTE_MS;
      return { fromMs, toMs: atMs, powerControl: control as PowerControl };
    });
  });

const configurationArbitrary: fc.Arbitrary<FullConfiguration> = fc.record({
  operationMode: fc.constantFrom('selfConsumption', 'feedInPriority', 'backupMode'),
  chargeCutoffSocPercent: fc.integer({ min: 50, max: 100 }),
  dischargeCutoffSocPercent: fc.integer({ min: 5, max: 50 }),
  siteImportLimitW: fc.integer({ min: 0, max: 65_535 }),
  siteExportLimitW: fc.integer({ min: 0, max: 65_535 }),
  samplingRate: fc.constantFrom(60 as const, 300 as const),
});

const scenario = fc.record({
  commands: commandsArbitrary,
  configuration: configurationArbitrary,
  initialSocPercent: fc.integer({ min: 0, max: 100 }),
  utcOffsetMinutes: fc.constantFrom(-180, 0, 60, 570, 600),
  deviceId: fc.constantFrom('BAT-A', 'BAT-B', 'BAT-C'),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

const inputOf = (s: Scenario) =>
  modelInput({
    household: householdProfile({
      deviceId: s.deviceId,
      siteId: 'PLANT-TEST',
      utcOffsetMinutes: s.utcOffsetMinutes,
      pvCapacityKw: 12,
    }),
    initialSocPercent: s.initialSocPercent,
    configurations: [{ fromMs: -Infinity, configuration: s.configuration }],
    commands: s.commands,
  });

describe('the physical model', () => {
  it('balances energy in every sample: grid = load - PV - battery', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const unbalanced = run(inputOf(s), 12 * 60).filter(
          (sample) =>
            Math.abs(sample.gridPowerW - (sample.loadW - sample.pvW - sample.batteryPowerW)) >=
            EPSILON,
        );
        expect(unbalanced).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });

  it('keeps battery power within its limits and the state of charge within 0..100', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const outside = run(inputOf(s), 12 * 60).filter(
          (sample) =>
            sample.batteryPowerW < -5_000 - EPSILON ||
            sample.batteryPowerW > 5_000 + EPSILON ||
            sample.state.socPercent < 0 ||
            sample.state.socPercent > 100,
        );
        expect(outside).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });

  it('never moves the state of charge past the cut-offs in force, nor the site limits', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = inputOf(s);
        let socBefore = s.initialSocPercent;
        for (const sample of run(input, 12 * 60)) {
          const command = inForceAt(s.commands, sample.atMs - MINUTE_MS)?.powerControl;
          const chargeCutoff =
            command?.chargeCutoffSocPercent ?? s.configuration.chargeCutoffSocPercent;
          const dischargeCutoff =
            command?.dischargeCutoffSocPercent ?? s.configuration.dischargeCutoffSocPercent;
          const importLimit = command?.siteImportLimitW ?? s.configuration.siteImportLimitW;
          const exportLimit = command?.siteExportLimitW ?? s.configuration.siteExportLimitW;
          const soc = sample.state.socPercent;
          const broken = [
            soc < Math.min(socBefore, dischargeCutoff) - EPSILON && 'below the discharge cut-off',
            soc > Math.max(socBefore, chargeCutoff) + EPSILON && 'above the charge cut-off',
            // Export: never beyond the limit (the battery's discharge capped, PV curtailed).
            sample.gridPowerW < -exportLimit - EPSILON && 'exports beyond the limit',
            // A discharge is capped so that it never makes PV curtailed.
            sample.batteryPowerW > EPSILON &&
              sample.pvW < pvAvailableW(input.household, sample.atMs - MINUTE_MS) - EPSILON &&
              'discharges while PV is curtailed',
            // Import: the household may exceed it, but never because the battery charges.
            sample.gridPowerW > importLimit + EPSILON &&
              sample.batteryPowerW < -EPSILON &&
              'charges while importing beyond the limit',
          ].filter(Boolean);
          if (broken.length > 0) expect({ atMs: sample.atMs, broken }).toEqual({});
          socBefore = soc;
        }
      }),
      { numRuns: 30 },
    );
  });

  it('follows the target of the command in force when nothing limits it', () => {
    const command = { fromMs: ORIGIN_MS + HOUR_MS, toMs: ORIGIN_MS + 2 * HOUR_MS };
    const samples = run(
      modelInput({
        commands: [{ ...command, powerControl: { targetBatteryPowerW: -3_000 } }],
        initialSocPercent: 40,
      }),
      3 * 60,
    );
    const during = samples.filter((s) => s.atMs > command.fromMs && s.atMs <= command.toMs);
    expect(during).toHaveLength(60);
    for (const sample of during) expect(sample.batteryPowerW).toBeCloseTo(-3_000, 6);
    // An hour at 3 kW into 20 kWh: 15 points of state of charge, exactly.
    const atStart = must(samples.find((s) => s.atMs === command.fromMs)).state.socPercent;
    const atEnd = must(samples.find((s) => s.atMs === command.toMs)).state.socPercent;
    expect(atEnd - atStart).toBeCloseTo(15, 9);
  });

  it('keeps the state of charge equal to the integrated battery power, at 60 s and 300 s', () => {
    fc.assert(
      fc.property(scenario, fc.constantFrom(MINUTE_MS, 5 * MINUTE_MS), (s, periodMs) => {
        const input = inputOf(s);
        const samples = run(input, 12 * 60, periodMs);
        const integratedPercent = samples.reduce(
          (sum, sample) => sum - (sample.batteryPowerW * (periodMs / 1000)) / (36_000 * 20),
          0,
        );
        const last = must(samples.at(-1));
        expect(last.state.socPercent - s.initialSocPercent).toBeCloseTo(integratedPercent, 6);
        // The counters agree with the powers too.
        const charged = last.state.batteryChargeKwh - last.state.batteryDischargeKwh;
        expect(charged).toBeCloseTo(integratedPercent * 0.2, 6);
      }),
      { numRuns: 20 },
    );
  });

  it('gives the same samples for the same seed, and other samples for another device', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        expect(run(inputOf(s), 6 * 60)).toEqual(run(inputOf(s), 6 * 60));
      }),
      { numRuns: 10 },
    );
    const profile = (deviceId: string) =>
      householdProfile({ deviceId, siteId: 'PLANT-TEST', utcOffsetMinutes: 60, pvCapacityKw: 6 });
    const day = Array.from({ length: 24 * 60 }, (_, m) => ORIGIN_MS + m * MINUTE_MS);
    expect(day.map((t) => loadW(profile('BAT-A'), t))).not.toEqual(
      day.map((t) => loadW(profile('BAT-B'), t)),
    );
  });

  it('draws load and PV by the site local time: PV only by day, the evening peak at 19:00', () => {
    const profile = (utcOffsetMinutes: number) =>
      householdProfile({ deviceId: 'BAT-A', siteId: 'PLANT-A', utcOffsetMinutes, pvCapacityKw: 6 });
    const at = (hourUtc: number) => ORIGIN_MS + hourUtc * HOUR_MS;
    // 03:00 UTC is night in Berlin (04:00) and midday in Brisbane (13:00).
    expect(pvAvailableW(profile(60), at(3))).toBe(0);
    expect(pvAvailableW(profile(600), at(3))).toBeGreaterThan(0);
    const meanLoad = (offset: number, hourUtc: number) =>
      Array.from({ length: 30 }, (_, m) =>
        loadW(profile(offset), at(hourUtc) + m * MINUTE_MS),
      ).reduce((a, b) => a + b) / 30;
    expect(meanLoad(60, 18)).toBeGreaterThan(meanLoad(60, 2) * 2);
  });

  it('returns to self-consumption outside commands, keeping the reserve', () => {
    const samples = run(
      modelInput({ initialSocPercent: SELF_CONSUMPTION_RESERVE_PERCENT + 2 }),
      24 * 60,
    );
    for (const sample of samples) {
      expect(sample.state.socPercent).toBeGreaterThanOrEqual(
        SELF_CONSUMPTION_RESERVE_PERCENT - EPSILON,
      );
      // Self-consumption: never imports while the battery could discharge, never exports while it could charge.
      if (
        sample.batteryPowerW < 5_000 - EPSILON &&
        sample.state.socPercent > SELF_CONSUMPTION_RESERVE_PERCENT + 0.5
      )
        expect(sample.gridPowerW).toBeLessThanOrEqual(EPSILON);
    }
  });

  it('stands the battery still during a fault', () => {
    const fault = { fromMs: ORIGIN_MS + 30 * MINUTE_MS, toMs: ORIGIN_MS + 90 * MINUTE_MS };
    const samples = run(
      modelInput({
        faults: [fault],
        commands: [
          {
            fromMs: ORIGIN_MS,
            toMs: ORIGIN_MS + 2 * HOUR_MS,
            powerControl: { targetBatteryPowerW: 2_000 },
          },
        ],
      }),
      120,
    );
    for (const sample of samples)
      if (sample.atMs > fault.fromMs && sample.atMs <= fault.toMs)
        expect(sample.batteryPowerW).toBe(0);
      else expect(sample.batteryPowerW).toBeCloseTo(2_000, 6);
  });
});

describe('seeded behaviours', () => {
  const catalog = new Catalog(DEMO_FIXTURE);
  const device = (id: string, behaviour?: Behaviour) => {
    const found = must(catalog.device(id));
    return behaviour ? { ...found, behaviour } : found;
  };
  const discharge: CommandInForce = {
    fromMs: ORIGIN_MS + 20 * HOUR_MS,
    toMs: ORIGIN_MS + 22 * HOUR_MS,
    powerControl: { targetBatteryPowerW: 5_000 },
  };
  const nowMs = ORIGIN_MS + 24 * HOUR_MS;

  /** A store with one executed discharge command on the device, and its samples of the day. */
  function storeWith(deviceId: string, behaviour: Behaviour) {
    const store = new TelemetryStore(
      new Catalog({
        ...DEMO_FIXTURE,
        sites: DEMO_FIXTURE.sites.map((site) => ({
          ...site,
          devices: site.devices.map((d) => (d.deviceId === deviceId ? { ...d, behaviour } : d)),
        })),
      }),
    );
    store.adopt({ originMs: ORIGIN_MS, executedCommands: [], conditions: [], configurations: [] });
    store.observeCommand({
      id: 'cmd_1',
      deviceId,
      powerControl: discharge.powerControl,
      startMs: discharge.fromMs,
      endMs: discharge.toMs,
      status: 'completed',
      receivedAtMs: ORIGIN_MS,
      startedAtMs: discharge.fromMs,
      completedAtMs: discharge.toMs,
    });
    const subject = device(deviceId, behaviour);
    const grid = store.sampleGrid(subject, ORIGIN_MS, nowMs, nowMs);
    const times = grid.runs.flatMap((run) => {
      const list: number[] = [];
      for (let t = run.fromMs; t <= run.toMs; t += grid.periodMs) list.push(t);
      return list;
    });
    return { store, subject, samples: store.samples(subject, times, grid.periodMs, nowMs), grid };
  }
  const inWindow = (samples: ModelSample[]) =>
    samples.filter((s) => s.atMs > discharge.fromMs && s.atMs <= discharge.toMs);

  it('follows: discharges at the target over the whole window', () => {
    const during = inWindow(storeWith('BAT-EU-100-01', 'follows').samples);
    expect(during).toHaveLength(120);
    expect(during.every((s) => Math.abs(s.batteryPowerW - 5_000) < EPSILON)).toBe(true);
  });

  it('ignoresCommands: sampled throughout, the battery as without the command', () => {
    const { samples, store, subject } = storeWith('BAT-EU-100-01', 'ignoresCommands');
    expect(inWindow(samples)).toHaveLength(120);
    const without = new TelemetryStore(catalog);
    without.adopt({
      originMs: ORIGIN_MS,
      executedCommands: [],
      conditions: [],
      configurations: [],
    });
    const times = samples.map((s) => s.atMs);
    expect(without.samples(subject, times, MINUTE_MS, nowMs)).toEqual(samples);
    expect(store.modelInput(subject).ignoresCommands).toBe(true);
  });

  it('goesOffline: no samples from minutes after the start until minutes after the end', () => {
    const { samples, grid } = storeWith('BAT-EU-100-01', 'goesOffline');
    const gapFrom = discharge.fromMs + OFFLINE_AFTER_START_MS;
    const gapTo = discharge.toMs + OFFLINE_AFTER_END_MS;
    expect(samples.some((s) => s.atMs >= gapFrom && s.atMs < gapTo)).toBe(false);
    expect(samples.some((s) => s.atMs > discharge.fromMs && s.atMs < gapFrom)).toBe(true);
    expect(samples.some((s) => s.atMs === gapTo)).toBe(true);
    expect(grid.total).toBe(24 * 60 - (gapTo - gapFrom) / MINUTE_MS);
  });

  it('nearCutoff: starts just above the discharge cut-off, so the discharge stops early', () => {
    const { samples, store, subject } = storeWith('BAT-EU-100-01', 'nearCutoff');
    const cutoff = store.configurationOf(subject).dischargeCutoffSocPercent;
    expect(store.modelInput(subject).initialSocPercent).toBe(cutoff + NEAR_CUTOFF_MARGIN_PERCENT);
    const during = inWindow(samples);
    // 5 % of 20 kWh at 5 kW lasts 12 minutes.
    expect(during.filter((s) => s.batteryPowerW > 1).length).toBeLessThanOrEqual(13);
    expect(must(during.at(-1)).batteryPowerW).toBe(0);
    expect(must(during.at(-1)).state.socPercent).toBeCloseTo(cutoff, 9);
  });

  it('siteLimited: the discharge is capped by the low export limit', () => {
    const { samples, store, subject } = storeWith('BAT-EU-100-01', 'siteLimited');
    expect(store.configurationOf(subject).siteExportLimitW).toBe(SITE_LIMITED_EXPORT_W);
    for (const sample of inWindow(samples)) {
      expect(sample.gridPowerW).toBeGreaterThanOrEqual(-SITE_LIMITED_EXPORT_W - EPSILON);
      expect(sample.batteryPowerW).toBeLessThan(5_000);
    }
  });

  it('a fault stands the battery still from its start', () => {
    const { store, subject } = storeWith('BAT-EU-100-01', 'follows');
    const faultAtMs = discharge.fromMs + 30 * MINUTE_MS;
    store.observeCondition(subject.deviceId, { online: true, fault: true, sinceMs: faultAtMs });
    const times = Array.from({ length: 120 }, (_, i) => discharge.fromMs + (i + 1) * MINUTE_MS);
    for (const sample of store.samples(subject, times, MINUTE_MS, nowMs))
      expect(sample.batteryPowerW).toBe(sample.atMs > faultAtMs ? 0 : 5_000);
  });

  it('the fleet holds 5 % ignoring, 3 % offline, 2 % near a cut-off and 1 % site-limited', () => {
    const counts = Object.fromEntries(BEHAVIOURS.map((b) => [b, 0])) as Record<Behaviour, number>;
    const fleet = new Catalog(FLEET_FIXTURE);
    const devices = [...fleet.allDevices()].filter((d) => d.siteId.startsWith('PLANT-EU-F'));
    expect(devices).toHaveLength(10_000);
    for (const d of devices) counts[d.behaviour ?? 'follows'] += 1;
    expect(counts).toEqual({
      follows: 8_900,
      ignoresCommands: 500,
      goesOffline: 300,
      nearCutoff: 200,
      siteLimited: 100,
      faultsDuringCommand: 0,
    });
    expect(fleetBehaviour(0)).toBe('ignoresCommands');
  });
});

describe('the telemetry store', () => {
  it("balances energy per site: the devices' meters add up to the site's", () => {
    const catalog = new Catalog(DEMO_FIXTURE);
    const store = new TelemetryStore(catalog);
    store.adopt({ originMs: ORIGIN_MS, executedCommands: [], conditions: [], configurations: [] });
    const site = must(catalog.site('PLANT-EU-001'));
    const times = Array.from({ length: 12 * 12 }, (_, i) => ORIGIN_MS + (i + 1) * 5 * MINUTE_MS);
    const perDevice = site.devices.map((device) =>
      store.samples(device, times, 5 * MINUTE_MS, ORIGIN_MS + 12 * HOUR_MS),
    );
    const sum = (i: number, key: 'gridPowerW' | 'loadW' | 'pvW' | 'batteryPowerW') =>
      perDevice.reduce((total, samples) => total + must(samples[i])[key], 0);
    for (let i = 0; i < times.length; i += 1)
      expect(
        Math.abs(
          sum(i, 'gridPowerW') - (sum(i, 'loadW') - sum(i, 'pvW') - sum(i, 'batteryPowerW')),
        ),
      ).toBeLessThan(EPSILON);
    // The devices of a site share its weather but not their households.
    expect(perDevice[0]?.map((s) => s.loadW)).not.toEqual(perDevice[1]?.map((s) => s.loadW));
  });

  it('answers the same samples read bit by bit while a command runs as read at once afterwards', () => {
    const catalog = new Catalog(DEMO_FIXTURE);
    const subject = must(catalog.device('BAT-EU-100-01'));
    const fresh = () => {
      const store = new TelemetryStore(catalog);
      store.adopt({
        originMs: ORIGIN_MS,
        executedCommands: [],
        conditions: [],
        configurations: [],
      });
      return store;
    };
    const command = {
      id: 'cmd_1',
      deviceId: subject.deviceId,
      powerControl: { targetBatteryPowerW: 4_000 },
      startMs: ORIGIN_MS + 2 * HOUR_MS,
      endMs: ORIGIN_MS + 4 * HOUR_MS,
      status: 'executing' as const,
      receivedAtMs: ORIGIN_MS + HOUR_MS,
      startedAtMs: ORIGIN_MS + 2 * HOUR_MS + 30_000,
    };
    const live = fresh();
    const readAt = (nowMs: number) => live.latest(subject, nowMs);
    readAt(ORIGIN_MS + 90 * MINUTE_MS);
    live.observeCommand(command);
    readAt(ORIGIN_MS + 150 * MINUTE_MS);
    readAt(ORIGIN_MS + 151 * MINUTE_MS);
    // The lifecycle stamps a transition with the instant it became due, which a read may have
    // passed already: cancelled at 3 h and faulted at 3.5 h, each learnt after a later read.
    readAt(ORIGIN_MS + 200 * MINUTE_MS);
    live.observeCommand({
      ...command,
      status: 'cancelled',
      cancelledAtMs: ORIGIN_MS + 3 * HOUR_MS,
      cancelReason: 'manuallyCancel',
    });
    readAt(ORIGIN_MS + 240 * MINUTE_MS);
    live.observeCondition(subject.deviceId, {
      online: true,
      fault: true,
      sinceMs: ORIGIN_MS + 210 * MINUTE_MS,
    });
    const nowMs = ORIGIN_MS + 6 * HOUR_MS;
    // The last hour, which a read steps to from the state the reads before it left.
    const times = Array.from(
      { length: 60 },
      (_, i) => ORIGIN_MS + 5 * HOUR_MS + (i + 1) * MINUTE_MS,
    );

    const once = fresh();
    once.observeCommand({
      ...command,
      status: 'cancelled',
      cancelledAtMs: ORIGIN_MS + 3 * HOUR_MS,
      cancelReason: 'manuallyCancel',
    });
    once.observeCondition(subject.deviceId, {
      online: true,
      fault: true,
      sinceMs: ORIGIN_MS + 210 * MINUTE_MS,
    });
    expect(live.samples(subject, times, MINUTE_MS, nowMs)).toEqual(
      once.samples(subject, times, MINUTE_MS, nowMs),
    );
  });
});
