import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import type { HistoryResponse } from '#domain/history.ts';
import { historyRangeProblem, historyRangeSlots, MAX_HISTORY_RANGE_MS } from '#domain/history.ts';
import { createTestQueryClient } from '#client/testing/render.tsx';
import { receivedRecord } from '#client/testing/status-records.ts';
import { commandKeys } from '../../api/command-keys.ts';
import { mergeRecords, recordsMeeting, writeStatusIntoHistory } from '../command-caches.ts';

describe('historyRangeSlots, the slots the history cache reads', () => {
  it('covers the range with valid, aligned ranges of at most 30 days', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1.7e12, max: 1.9e12 }),
        fc.integer({ min: 1, max: 90 * 86_400_000 }),
        (startMs, spanMs) => {
          const slots = historyRangeSlots(startMs, startMs + spanMs);
          expect(slots[0]?.startMs).toBeLessThanOrEqual(startMs);
          expect(slots.at(-1)?.endMs).toBeGreaterThanOrEqual(startMs + spanMs);
          slots.forEach((slot, i) => {
            expect(historyRangeProblem(slot.startMs, slot.endMs)).toBeNull();
            expect(slot.startMs % MAX_HISTORY_RANGE_MS).toBe(0);
            if (i > 0) expect(slot.startMs).toBe(slots[i - 1]?.endMs);
          });
        },
      ),
    );
  });

  it('gives the same slot to views that pan inside it, so the cache is reused', () => {
    const base = 1000 * MAX_HISTORY_RANGE_MS;
    expect(historyRangeSlots(base + 10, base + 86_400_000)).toEqual(
      historyRangeSlots(base + 5 * 86_400_000, base + 6 * 86_400_000),
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

describe('recordsMeeting', () => {
  const record = (id: string, startTime: string, endTime: string): StatusRecord =>
    receivedRecord({
      id,
      deviceId: 'BAT-1',
      startTime,
      endTime,
      receivedAt: '2026-11-01T00:00:00Z',
    });

  it('keeps the windows that meet the range, as the history query does, not those that touch it', () => {
    const range = {
      startMs: Date.parse('2026-11-21T10:00:00Z'),
      endMs: Date.parse('2026-11-21T12:00:00Z'),
    };
    const kept = recordsMeeting(
      [
        record('before', '2026-11-21T09:00:00Z', '2026-11-21T10:00:00Z'),
        record('across-start', '2026-11-21T09:30:00Z', '2026-11-21T10:30:00Z'),
        record('inside', '2026-11-21T11:00:00Z', '2026-11-21T11:30:00Z'),
        record('across-end', '2026-11-21T11:30:00Z', '2026-11-21T13:00:00Z'),
        record('after', '2026-11-21T12:00:00Z', '2026-11-21T13:00:00Z'),
      ],
      range,
    );
    expect(kept.map((r) => r.id)).toEqual(['across-start', 'inside', 'across-end']);
  });
});

describe('writeStatusIntoHistory', () => {
  const received = receivedRecord({
    id: 'cmd_1',
    deviceId: 'BAT-1',
    startTime: '2026-11-21T10:00:00Z',
    endTime: '2026-11-21T11:00:00Z',
    receivedAt: '2026-11-21T09:00:00Z',
  });
  const executing: StatusRecord = { ...received, status: 'executing' };
  const slot = { startMs: 1000 * MAX_HISTORY_RANGE_MS, endMs: 1001 * MAX_HISTORY_RANGE_MS };
  const other = { startMs: 1001 * MAX_HISTORY_RANGE_MS, endMs: 1002 * MAX_HISTORY_RANGE_MS };
  const statusIn = (queryClient: ReturnType<typeof createTestQueryClient>, at: typeof slot) =>
    queryClient.getQueryData<HistoryResponse>(commandKeys.history('BAT-1', at))?.commands[0]
      ?.status;

  it('replaces the record in every cached slot of the device that holds it', () => {
    const queryClient = createTestQueryClient();
    queryClient.setQueryData(commandKeys.history('BAT-1', slot), { commands: [received] });
    queryClient.setQueryData(commandKeys.history('BAT-1', other), { commands: [received] });
    writeStatusIntoHistory(queryClient, executing);
    expect(statusIn(queryClient, slot)).toBe('executing');
    expect(statusIn(queryClient, other)).toBe('executing');
  });

  it('leaves a slot a mutation invalidated to be read again, instead of marking it fresh', async () => {
    const queryClient = createTestQueryClient();
    queryClient.setQueryData(commandKeys.history('BAT-1', slot), { commands: [received] });
    await queryClient.invalidateQueries({ queryKey: commandKeys.device('BAT-1') });
    writeStatusIntoHistory(queryClient, executing);
    const query = queryClient
      .getQueryCache()
      .find({ queryKey: commandKeys.history('BAT-1', slot) });
    expect(query?.state.isInvalidated).toBe(true);
  });
});
