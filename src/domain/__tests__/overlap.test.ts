import { describe, expect, it } from 'vitest';
import { findActiveOverlap } from '../overlap.ts';

const ms = (iso: string) => Date.parse(iso);
const WINDOW = { startMs: ms('2026-11-21T10:00:00Z'), endMs: ms('2026-11-21T11:00:00Z') };
const own = {
  id: 'cmd_own',
  batchCommandId: 'batch_1',
  status: 'received' as const,
  startTime: '2026-11-21T10:00:00Z',
  endTime: '2026-11-21T11:00:00Z',
};
const other = { ...own, id: 'cmd_other', batchCommandId: 'batch_0' };
const single = { ...own, id: 'cmd_single', batchCommandId: undefined };

describe('findActiveOverlap, for a batch', () => {
  it('never counts a command of the batch being checked', () => {
    expect(findActiveOverlap(WINDOW, [own], { batchCommandId: 'batch_1' })).toBeUndefined();
  });

  it('still finds commands of other batches and single commands', () => {
    expect(findActiveOverlap(WINDOW, [own, other], { batchCommandId: 'batch_1' })?.id).toBe(
      'cmd_other',
    );
    expect(findActiveOverlap(WINDOW, [own, single], { batchCommandId: 'batch_1' })?.id).toBe(
      'cmd_single',
    );
  });

  it('counts every batch when no batch is being checked', () => {
    expect(findActiveOverlap(WINDOW, [own])?.id).toBe('cmd_own');
  });
});
