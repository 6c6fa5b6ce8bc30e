import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import { drawnSpanPx, powerWindows, seriesInUse } from '../power-series.ts';

const command = (
  id: string,
  start: string,
  end: string,
  powerControl: StatusRecord['powerControl'],
) =>
  ({
    id,
    deviceId: 'BAT-EU-001-A',
    powerControl,
    startTime: start,
    endTime: end,
    status: 'completed',
    receivedAt: start,
  }) satisfies StatusRecord;

describe('powerWindows', () => {
  it('keeps the battery sign, draws the import limit below the axis, and orders by time', () => {
    const windows = powerWindows([
      command('b', '2026-11-23T10:00:00Z', '2026-11-23T11:00:00Z', {
        siteImportLimitW: 5000,
        chargeCutoffSocPercent: 90,
      }),
      command('a', '2026-11-23T05:33:00Z', '2026-11-23T05:42:00Z', { targetBatteryPowerW: -2000 }),
    ]);
    expect(windows.map((window) => [window.command.id, window.drawnValues])).toEqual([
      ['a', { targetBatteryPowerW: -2000 }],
      ['b', { siteImportLimitW: -5000, chargeCutoffSocPercent: 90 }],
    ]);
    expect(windows[0]?.endMs).toBe(Date.parse('2026-11-23T05:42:00Z'));
  });

  it('names the series in drawing order', () => {
    expect(
      seriesInUse([
        command('a', '2026-11-23T05:33:00Z', '2026-11-23T05:42:00Z', {
          dischargeCutoffSocPercent: 10,
          targetBatteryPowerW: 1,
        }),
      ]),
    ).toEqual(['targetBatteryPowerW', 'dischargeCutoffSocPercent']);
  });
});

describe('drawnSpanPx', () => {
  it('widens a 3 px window about its middle to the minimum width', () => {
    expect(drawnSpanPx(100, 103, 6, 0, 500)).toEqual({ leftPx: 98.5, rightPx: 104.5 });
  });

  it('keeps a wide window as it is and cuts it at the plot', () => {
    expect(drawnSpanPx(100, 200, 6, 0, 500)).toEqual({ leftPx: 100, rightPx: 200 });
    expect(drawnSpanPx(-50, 20, 6, 0, 500)).toEqual({ leftPx: 0, rightPx: 20 });
  });

  it('keeps a short window at an edge inside the plot', () => {
    expect(drawnSpanPx(499, 500, 6, 0, 500)).toEqual({ leftPx: 494, rightPx: 500 });
    expect(drawnSpanPx(0, 1, 6, 0, 500)).toEqual({ leftPx: 0, rightPx: 6 });
  });
});
