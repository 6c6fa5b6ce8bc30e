import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import { CANCELLATION_REASON_WORDS } from '#domain/words.ts';
import {
  outcomeDayWords,
  outcomesChartSummary,
  powerChartSummary,
  powerWindowWords,
} from '../chart-summary.ts';
import { outcomesByDay } from '../outcomes-by-day.ts';
import { powerWindows } from '../power-series.ts';

const CHARGE: StatusRecord = {
  id: 'cmd-1',
  deviceId: 'BAT-EU-001-A',
  powerControl: { targetBatteryPowerW: -2000 },
  startTime: '2026-11-23T05:33:00Z',
  endTime: '2026-11-23T05:42:00Z',
  status: 'completed',
  receivedAt: '2026-11-23T05:32:00Z',
};
const LIMITS: StatusRecord = {
  id: 'cmd-2',
  deviceId: 'BAT-EU-001-A',
  powerControl: { targetBatteryPowerW: 3000, siteImportLimitW: 5000 },
  startTime: '2026-11-23T22:30:00Z',
  endTime: '2026-11-23T23:30:00Z',
  status: 'cancelled',
  cancelReason: 'deviceFault',
  receivedAt: '2026-11-23T05:32:00Z',
};

describe('power chart in words', () => {
  it('says charge and discharge instead of a sign, and the windows on the site clock', () => {
    expect(powerChartSummary([CHARGE], 'Europe/Berlin')).toBe(
      'Target battery power set by 1 command, always 2 kW charge (discharge drawn above the axis, charge below). Windows from 2026-11-23 06:33 to 06:42 (Europe/Berlin).',
    );
    expect(powerChartSummary([CHARGE, LIMITS], 'Europe/Berlin')).toBe(
      'Target battery power set by 2 commands, from 2 kW charge to 3 kW discharge (discharge drawn above the axis, charge below). Site import limit set by 1 command, always 5 kW (drawn below the axis). Windows from 2026-11-23 06:33 to 2026-11-24 00:30 (Europe/Berlin).',
    );
  });

  it('gives a tooltip per window: site time 24-hour with the zone, UTC, values, status', () => {
    const limits = powerWindows([CHARGE, LIMITS]).find((window) => window.command.id === 'cmd-2');
    if (!limits) throw new Error('no window for cmd-2');
    expect(powerWindowWords(limits, 'Australia/Adelaide')).toEqual([
      '2026-11-24 09:00–10:00 (Australia/Adelaide)',
      'UTC 2026-11-23 22:30–23:30',
      'Target battery power: 3 kW discharge',
      'Site import limit: 5 kW',
      `Cancelled: ${CANCELLATION_REASON_WORDS.deviceFault}`,
    ]);
  });
});

describe('outcomes chart in words', () => {
  const days = outcomesByDay(
    [CHARGE, LIMITS],
    Date.parse('2026-11-22T23:00:00Z'),
    Date.parse('2026-11-24T23:00:00Z'),
    'Europe/Berlin',
  );

  it('names the busiest day with its zone', () => {
    expect(outcomesChartSummary(days, 'Europe/Berlin')).toBe(
      `Outcomes per day of 2 commands: 1 completed; 1 cancelled: ${CANCELLATION_REASON_WORDS.deviceFault.toLowerCase()}. Busiest day 2026-11-23 (Europe/Berlin) with 2 commands.`,
    );
  });

  it('gives a tooltip per site-local day with its counts, empty days too', () => {
    expect(days.map((day) => day.day)).toEqual(['2026-11-23', '2026-11-24']);
    const [first, second] = days;
    if (!first || !second) throw new Error('two days expected');
    expect(outcomeDayWords(first, 'Europe/Berlin')).toEqual([
      '2026-11-23 (Europe/Berlin): 2 commands',
      'Completed: 1',
      `Cancelled: ${CANCELLATION_REASON_WORDS.deviceFault}: 1`,
    ]);
    expect(outcomeDayWords(second, 'Europe/Berlin')).toEqual([
      '2026-11-24 (Europe/Berlin): 0 commands',
      'No command starts on this day.',
    ]);
    expect(days[1]?.startMs).toBe(Date.parse('2026-11-23T23:00:00Z'));
  });
});
