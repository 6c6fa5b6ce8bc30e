import { describe, expect, it } from 'vitest';
import { minuteSamples, verdictRecord } from '#client/testing/verdict-records.ts';
import { powerScaleOf, formatScaledBatteryPower } from '../power-scale.ts';
import {
  chartRangeOf,
  commandedPoints,
  measuredPoints,
  recordsForChart,
} from '../verdict-chart.ts';
import { energyWords } from '../verdict-words.ts';

const at = (iso: string) => Date.parse(iso);
const today = verdictRecord({
  commandId: 'cmd_today',
  startTime: '2026-11-20T10:00:00Z',
  endTime: '2026-11-20T10:05:00Z',
});
const earlierToday = verdictRecord({
  commandId: 'cmd_earlier',
  startTime: '2026-11-20T01:00:00Z',
  endTime: '2026-11-20T01:03:00Z',
});
const lastWeek = verdictRecord({
  commandId: 'cmd_week',
  startTime: '2026-11-13T10:00:00Z',
  endTime: '2026-11-13T11:00:00Z',
});

describe('what the power and state of charge chart draws', () => {
  it('charts the windows of the newest day, oldest first, or the one window chosen', () => {
    const records = [today, earlierToday, lastWeek];
    expect(recordsForChart(records).map((r) => r.commandId)).toEqual(['cmd_earlier', 'cmd_today']);
    expect(recordsForChart(records, 'cmd_week').map((r) => r.commandId)).toEqual(['cmd_week']);
    expect(recordsForChart(records, 'cmd_gone').map((r) => r.commandId)).toHaveLength(2);
  });

  it('pads the range by at least a sampling period so a band never sits on the plot edge', () => {
    expect(chartRangeOf([today])).toEqual({
      startMs: at('2026-11-20T09:59:00Z'),
      endMs: at('2026-11-20T10:06:00Z'),
    });
    expect(() => chartRangeOf([])).toThrow(RangeError);
  });

  it('breaks the measured lines between windows and over missing samples, never bridging them', () => {
    const gappy = verdictRecord({
      commandId: 'cmd_gap',
      startTime: '2026-11-20T12:00:00Z',
      endTime: '2026-11-20T12:05:00Z',
      samples: (() => {
        const all = minuteSamples('2026-11-20T12:00:00Z', '2026-11-20T12:05:00Z', 1000);
        // Minutes 2 and 3 were not measured.
        const keep = [0, 1, 4];
        return {
          atMs: keep.map((i) => all.atMs[i] ?? 0),
          batteryPowerW: keep.map((i) => all.batteryPowerW[i] ?? 0),
          socPercent: keep.map((i) => all.socPercent[i] ?? 0),
          gridPowerW: keep.map(() => 0),
          pvPowerW: keep.map(() => 0),
        };
      })(),
    });
    const points = measuredPoints([gappy, earlierToday]);
    const breaks = points.flatMap((point, index) => (point.batteryPowerW === null ? [index] : []));
    // earlierToday: 3 samples then a break; gappy: 2 samples, a break, 1 sample, a break.
    expect(breaks).toEqual([3, 6, 8]);
    expect(points[0]?.tMs).toBe(at('2026-11-20T01:00:00Z'));
  });

  it('draws the commanded power over the judged window only, none for limits only', () => {
    const cancelledEarly = verdictRecord({
      commandId: 'cmd_cut',
      startTime: '2026-11-20T10:00:00Z',
      endTime: '2026-11-20T11:00:00Z',
      judgedTo: '2026-11-20T10:20:00Z',
      powerControl: { targetBatteryPowerW: -3000 },
    });
    const limitsOnly = verdictRecord({
      commandId: 'cmd_limit',
      startTime: '2026-11-20T12:00:00Z',
      endTime: '2026-11-20T13:00:00Z',
      powerControl: { siteExportLimitW: 2000 },
    });
    expect(commandedPoints([limitsOnly, cancelledEarly])).toEqual([
      { tMs: at('2026-11-20T10:00:00Z'), commandedW: -3000 },
      { tMs: at('2026-11-20T10:20:00Z'), commandedW: -3000 },
      { tMs: at('2026-11-20T10:20:00Z') + 1, commandedW: null },
    ]);
  });
});

describe('words of a verdict', () => {
  it('says delivered against commanded energy with its direction and share', () => {
    expect(energyWords({ commandedEnergyWh: 5000, deliveredEnergyWh: 4900 })).toBe(
      '4.9 kWh discharged of 5 kWh commanded (98%)',
    );
    expect(energyWords({ commandedEnergyWh: 5000, deliveredEnergyWh: -500 })).toBe(
      '0.5 kWh charged; 5 kWh discharge commanded',
    );
    expect(energyWords({ commandedEnergyWh: -1500, deliveredEnergyWh: null })).toBe(
      'Nothing measured of 1.5 kWh charge commanded',
    );
    expect(energyWords({ commandedEnergyWh: null, deliveredEnergyWh: 250 })).toBe(
      '0.25 kWh discharged; limits only',
    );
  });

  it('reads a fleet in MW, a battery in kW, a trickle in W', () => {
    expect(powerScaleOf([2_000_000, -5])).toEqual({ unit: 'MW', divisor: 1_000_000 });
    expect(formatScaledBatteryPower(-4800, powerScaleOf([5000]))).toBe('4.8 kW charge');
    expect(powerScaleOf([800]).unit).toBe('W');
  });
});
