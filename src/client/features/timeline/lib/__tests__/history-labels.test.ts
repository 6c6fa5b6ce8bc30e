import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { historyRangeProblem, MAX_HISTORY_RANGE_MS } from '../../../../../domain/history.ts';
import type { StatusRecord } from '../../../../../domain/command.ts';
import { historyChunks, mergeRecords } from '../history-chunks.ts';
import { shortControlLabel } from '../labels.ts';
import { windowInZone } from '../window-words.ts';

describe('historyChunks', () => {
  it('covers the range with valid, aligned ranges of at most 30 days', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1.7e12, max: 1.9e12 }),
        fc.integer({ min: 1, max: 90 * 86_400_000 }),
        (startMs, spanMs) => {
          const chunks = historyChunks(startMs, startMs + spanMs);
          expect(chunks[0]?.startMs).toBeLessThanOrEqual(startMs);
          expect(chunks.at(-1)?.endMs).toBeGreaterThanOrEqual(startMs + spanMs);
          chunks.forEach((chunk, i) => {
            expect(historyRangeProblem(chunk.startMs, chunk.endMs)).toBeNull();
            expect(chunk.startMs % MAX_HISTORY_RANGE_MS).toBe(0);
            if (i > 0) expect(chunk.startMs).toBe(chunks[i - 1]?.endMs);
          });
        },
      ),
    );
  });

  it('gives the same chunk to views that pan inside it, so the cache is reused', () => {
    const base = 1000 * MAX_HISTORY_RANGE_MS;
    expect(historyChunks(base + 10, base + 86_400_000)).toEqual(
      historyChunks(base + 5 * 86_400_000, base + 6 * 86_400_000),
    );
  });
});

describe('mergeRecords', () => {
  const record = (id: string, status: StatusRecord['status'], start: string): StatusRecord => ({
    id,
    deviceId: 'BAT-1',
    powerControl: { targetBatteryPowerW: 1000 },
    startTime: start,
    endTime: '2026-12-01T00:00:00Z',
    status,
    receivedAt: '2026-11-01T00:00:00Z',
  });

  it('keeps one record per command, the one furthest in its lifecycle, sorted by start', () => {
    const merged = mergeRecords([
      [
        record('b', 'received', '2026-11-21T02:00:00Z'),
        record('a', 'executing', '2026-11-21T01:00:00Z'),
      ],
      [
        record('b', 'executing', '2026-11-21T02:00:00Z'),
        record('a', 'received', '2026-11-21T01:00:00Z'),
      ],
    ]);
    expect(merged.map((r) => [r.id, r.status])).toEqual([
      ['a', 'executing'],
      ['b', 'executing'],
    ]);
  });
});

describe('shortControlLabel', () => {
  it('writes the control in short form', () => {
    expect(shortControlLabel({ targetBatteryPowerW: -3000, chargeCutoffSocPercent: 90 })).toBe(
      '-3 kW, stop at 90%',
    );
    expect(shortControlLabel({ targetBatteryPowerW: 2500, dischargeCutoffSocPercent: 20 })).toBe(
      '+2.5 kW, stop at 20%',
    );
    expect(shortControlLabel({ siteExportLimitW: 500, siteImportLimitW: 12000 })).toBe(
      'import ≤ 12 kW, export ≤ 500 W',
    );
  });
});

describe('windowInZone', () => {
  it('writes a window in the site wall clock, naming both days across midnight', () => {
    const start = Date.parse('2026-11-21T13:00:00Z');
    expect(windowInZone(start, start + 3_600_000, 'Europe/Berlin')).toBe(
      'Sat 21 Nov 14:00–15:00 Europe/Berlin',
    );
    expect(windowInZone(start, start + 3_600_000, 'Australia/Adelaide')).toBe(
      'Sat 21 Nov 23:30–Sun 22 Nov 00:30 Australia/Adelaide',
    );
  });
});
