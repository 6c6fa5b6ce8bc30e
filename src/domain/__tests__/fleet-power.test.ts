import { describe, expect, it } from 'vitest';
import {
  deliverableOf,
  deliveredPercentOf,
  eventVerdictsOf,
  deliveredEnergyWhOf,
  eventPowerCurve,
  fleetDeliverableOf,
  isRecentSample,
  needsSnapshotRead,
  snapshotDeviceOf,
  SNAPSHOT_FRESH_MS,
  SNAPSHOT_RECENT_MS,
  type SnapshotDevice,
} from '../fleet-power.ts';
import type { TelemetrySample } from '../telemetry.ts';
import type { CommandVerdictRecord } from '../verdict-answer.ts';

const MINUTE = 60_000;
const START = Date.parse('2026-03-10T10:00:00Z');

const sample = (atMs: number, batteryPowerW: number, extra: Partial<TelemetrySample> = {}) => ({
  atMs,
  batteryPowerW,
  socPercent: 50,
  gridPowerW: 0,
  pvPowerW: 0,
  ...extra,
});

describe('eventPowerCurve', () => {
  it('sums commanded and measured power per step, counting the devices measured', () => {
    const minutes = (count: number, powerW: number) =>
      Array.from({ length: count }, (_, minute) => sample(START + (minute + 1) * MINUTE, powerW));
    const curve = eventPowerCurve(
      [
        { samples: minutes(10, 3000), commandedW: 3000, fromMs: START, toMs: START + 10 * MINUTE },
        // Silent after five minutes; commanded for the first half only.
        { samples: minutes(5, 2000), commandedW: 2000, fromMs: START, toMs: START + 5 * MINUTE },
      ],
      START,
      START + 10 * MINUTE,
      MINUTE,
    );
    expect(curve).toHaveLength(10);
    expect(curve[0]).toEqual({
      atMs: START,
      commandedW: 5000,
      deliveredW: 5000,
      measuredDevices: 2,
    });
    expect(curve[9]).toEqual({
      atMs: START + 9 * MINUTE,
      commandedW: 3000,
      deliveredW: 3000,
      measuredDevices: 1,
    });
    expect(deliveredEnergyWhOf(curve, MINUTE)).toBeCloseTo((10 * 3000 + 5 * 2000) / 60);
  });

  it('takes one sample of a device per step, stamped at its end, and none outside the range', () => {
    const curve = eventPowerCurve(
      [
        {
          // The step's own sample, a second stamped the same, and the one ending the step before.
          samples: [
            sample(START + MINUTE, 1000),
            sample(START + MINUTE, 9000),
            sample(START, 9000),
          ],
          commandedW: 1000,
          fromMs: START,
          toMs: START + MINUTE,
        },
      ],
      START,
      START + MINUTE,
      MINUTE,
    );
    expect(curve).toEqual([
      { atMs: START, commandedW: 1000, deliveredW: 1000, measuredDevices: 1 },
    ]);
  });

  it('refuses a step of no length', () => {
    expect(() => eventPowerCurve([], START, START + MINUTE, 0)).toThrow(RangeError);
  });
});

describe('deliverableOf', () => {
  const device = (extra: Partial<SnapshotDevice> = {}): SnapshotDevice => ({
    sample: sample(START, 0, { socPercent: 60, gridPowerW: 500 }),
    capacityKwh: 10,
    maxChargePowerW: 5000,
    maxDischargePowerW: 5000,
    dischargeCutoffSocPercent: 10,
    chargeCutoffSocPercent: 100,
    ...extra,
  });
  const HOUR = 3_600_000;

  it('gives its full power when its usable energy lasts the window', () => {
    // 50% of 10 kWh above the cut-off: 5 kWh, one hour at 5 kW.
    expect(deliverableOf(device(), 5000, HOUR)).toEqual({
      deliverableW: 5000,
      capW: 5000,
      lastsMs: HOUR,
      lastsWindow: true,
    });
  });

  it('spreads its usable energy over a longer window, and says it cannot last it', () => {
    const result = deliverableOf(device(), 5000, 2 * HOUR);
    expect(result.deliverableW).toBe(2500);
    expect(result.lastsWindow).toBe(false);
    expect(result.lastsMs).toBe(HOUR);
    expect(result.limitedBy).toBe('stateOfCharge');
  });

  it('caps a discharge by the site export limit after the site load', () => {
    // Load less PV is 500 W; 1,000 W may be exported: 1,500 W from the battery.
    const result = deliverableOf(device({ siteExportLimitW: 1000 }), 5000, HOUR / 2);
    expect(result.deliverableW).toBe(1500);
    expect(result.capW).toBe(1500);
    expect(result.lastsWindow).toBe(false);
    expect(result.limitedBy).toBe('siteLimit');
  });

  it('counts a charge from its room below the charge cut-off, signed as a charge', () => {
    const result = deliverableOf(device({ chargeCutoffSocPercent: 80 }), -4000, HOUR);
    expect(result.deliverableW).toBe(-2000);
    expect(result.capW).toBe(-5000);
    expect(result.lastsWindow).toBe(false);
  });

  it('has nothing to give at its cut-off', () => {
    const atCutoff = device({ sample: sample(START, 0, { socPercent: 10 }) });
    expect(deliverableOf(atCutoff, 3000, HOUR)).toMatchObject({
      deliverableW: 0,
      lastsWindow: false,
    });
  });

  it('says a power limit below the requested power holds it back', () => {
    const result = deliverableOf(device({ maxDischargePowerW: 3000 }), 5000, HOUR / 4);
    expect(result).toMatchObject({ deliverableW: 3000, capW: 3000, lastsWindow: false });
    expect(result.limitedBy).toBe('powerLimit');
  });
});

describe('snapshotDeviceOf', () => {
  const sampled = sample(START, 0, { socPercent: 40 });
  const ratings = { capacityKwh: 10, maxChargePowerW: 5000, maxDischargePowerW: 5000 };

  it("takes the command's cut-offs and limits, else the configured ones, else the vendor's defaults", () => {
    expect(snapshotDeviceOf(sampled, ratings, {}, {})).toEqual({
      sample: sampled,
      ...ratings,
      chargeCutoffSocPercent: 100,
      dischargeCutoffSocPercent: 10,
    });
    const configured = {
      cutoffs: { dischargeCutoffSocPercent: 20, chargeCutoffSocPercent: 90 },
      siteLimits: { siteExportLimitW: 1000 },
    };
    expect(
      snapshotDeviceOf(sampled, ratings, { dischargeCutoffSocPercent: 30 }, configured),
    ).toMatchObject({
      dischargeCutoffSocPercent: 30,
      chargeCutoffSocPercent: 90,
      siteExportLimitW: 1000,
      siteImportLimitW: undefined,
    });
  });
});

describe('snapshot freshness', () => {
  it('reads a device again only once its last read is a few minutes old', () => {
    expect(needsSnapshotRead(undefined, START)).toBe(true);
    expect(needsSnapshotRead(START - SNAPSHOT_FRESH_MS, START)).toBe(false);
    expect(needsSnapshotRead(START - SNAPSHOT_FRESH_MS - 1, START)).toBe(true);
  });

  it('counts a sample measured while it is recent', () => {
    expect(isRecentSample(sample(START - SNAPSHOT_RECENT_MS, 0), START)).toBe(true);
    expect(isRecentSample(sample(START - SNAPSHOT_RECENT_MS - 1, 0), START)).toBe(false);
    expect(isRecentSample(undefined, START)).toBe(false);
  });
});

describe('fleetDeliverableOf', () => {
  const HOUR = 3_600_000;
  const snapshot = (socPercent: number, extra: Partial<SnapshotDevice> = {}): SnapshotDevice => ({
    sample: sample(START, 0, { socPercent, gridPowerW: 400 }),
    capacityKwh: 10,
    maxChargePowerW: 5000,
    maxDischargePowerW: 5000,
    dischargeCutoffSocPercent: 10,
    chargeCutoffSocPercent: 100,
    ...extra,
  });

  it('sums what each measured device holds, never more than requested, and lists who cannot last', () => {
    const fleet = fleetDeliverableOf(
      [
        // 80% of 10 kWh above the cut-off: 8 kWh, 2 h at 4 kW, so it holds the 4 kW asked.
        { deviceId: 'A', snapshot: snapshot(90) },
        // 2 kWh: 30 min at 4 kW; over 2 h it holds 1 kW.
        { deviceId: 'B', snapshot: snapshot(30) },
        // Its site may export 1 kW over its 400 W of load: 1.4 kW at most.
        { deviceId: 'C', snapshot: snapshot(90, { siteExportLimitW: 1000 }) },
        // 1 kWh: 15 min.
        { deviceId: 'D', snapshot: snapshot(20) },
        { deviceId: 'E' },
      ],
      4000,
      2 * HOUR,
    );
    expect(fleet.commandedW).toBe(20_000);
    expect(fleet.deliverableW).toBe(4000 + 1000 + 1400 + 500);
    expect(fleet.measured).toBe(4);
    expect(fleet.notMeasured).toEqual(['E']);
    expect(fleet.cannotLast).toEqual([
      {
        deviceId: 'D',
        lastsMs: HOUR / 4,
        deliverableW: 500,
        capW: 5000,
        limitedBy: 'stateOfCharge',
      },
      {
        deviceId: 'B',
        lastsMs: HOUR / 2,
        deliverableW: 1000,
        capW: 5000,
        limitedBy: 'stateOfCharge',
      },
      { deviceId: 'C', lastsMs: 2 * HOUR, deliverableW: 1400, capW: 1400, limitedBy: 'siteLimit' },
    ]);
  });

  it('counts a charge with its sign', () => {
    const fleet = fleetDeliverableOf([{ deviceId: 'A', snapshot: snapshot(90) }], -3000, HOUR);
    // 1 kWh of room below 100%: 1 kW over the hour, 20 min at 3 kW.
    expect(fleet).toMatchObject({ commandedW: -3000, deliverableW: -1000, measured: 1 });
    expect(fleet.cannotLast[0]).toMatchObject({ deviceId: 'A', lastsMs: HOUR / 3 });
  });
});

describe('deliveredPercentOf', () => {
  it('compares energy in the commanded direction, never below 0', () => {
    expect(deliveredPercentOf(10_000, 7_500)).toBe(75);
    expect(deliveredPercentOf(-4_000, -4_000)).toBe(100);
    expect(deliveredPercentOf(4_000, -1_000)).toBe(0);
    expect(deliveredPercentOf(0, 100)).toBeUndefined();
  });
});

describe('eventVerdictsOf', () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  const record = (
    deviceId: string,
    verdict: 'delivered' | 'notFollowing',
    deliveredW: number,
  ): CommandVerdictRecord => {
    const minutes = Array.from({ length: 10 }, (_, minute) => START + (minute + 1) * MINUTE);
    return {
      deviceId,
      commandId: `cmd_${deviceId}`,
      batchCommandId: 'batch_1',
      powerControl: { targetBatteryPowerW: 3000 },
      startTime: iso(START),
      endTime: iso(START + 10 * MINUTE),
      status: 'completed',
      judgedFrom: iso(START),
      judgedTo: iso(START + 10 * MINUTE),
      judgedAt: iso(START + 11 * MINUTE),
      samplingPeriodMs: MINUTE,
      result: {
        verdict,
        commandedEnergyWh: 500,
        deliveredEnergyWh: (deliveredW * 10) / 60,
        coverage: 1,
        samples: {
          expected: 10,
          present: 10,
          following: 10,
          limitedBySoc: 0,
          limitedBySiteLimit: 0,
        },
        alarms: [],
      },
      samples: {
        atMs: minutes,
        batteryPowerW: minutes.map(() => deliveredW),
        socPercent: minutes.map(() => 50),
        gridPowerW: minutes.map(() => 0),
        pvPowerW: minutes.map(() => 0),
      },
    };
  };

  it('counts each verdict and draws commanded against delivered power over the window', () => {
    const answer = eventVerdictsOf(
      [record('A', 'delivered', 3000), record('B', 'notFollowing', 300)],
      3,
    );
    expect(answer.devices).toBe(3);
    expect(answer.pending).toBe(1);
    expect(answer.counts).toMatchObject({ delivered: 1, notFollowing: 1, noData: 0 });
    expect(answer.commandedEnergyWh).toBe(1000);
    expect(answer.deliveredEnergyWh).toBeCloseTo(550);
    expect(answer.deliveredPercent).toBe(55);
    expect(answer.curve).toHaveLength(10);
    expect(answer.curve[0]).toEqual({
      atMs: START,
      commandedW: 6000,
      deliveredW: 3300,
      measuredDevices: 2,
    });
    expect(answer.verdicts.map((verdict) => [verdict.deviceId, verdict.verdict])).toEqual([
      ['A', 'delivered'],
      ['B', 'notFollowing'],
    ]);
  });

  it('answers an event with no verdict yet as all pending, with no curve', () => {
    const answer = eventVerdictsOf([], 4);
    expect(answer).toMatchObject({ devices: 4, pending: 4, curve: [], commandedEnergyWh: 0 });
    expect(answer.deliveredPercent).toBeUndefined();
  });
});
