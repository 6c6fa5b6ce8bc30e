import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import { batchUndoRefusal, undoRefusal } from '../undo.ts';
import { RECEIVED_ON_BAT_1 } from '#client/testing/status-records.ts';

const NOW_MS = Date.parse('2026-11-21T00:00:00Z');
const RECORD = RECEIVED_ON_BAT_1;
const submit = { kind: 'submit', deviceId: 'BAT-1', commandId: 'cmd_1', key: 'k1' } as const;

describe('undoRefusal', () => {
  it('lets a submission be undone while it is received, never once it started or ended', () => {
    expect(undoRefusal(submit, RECORD, NOW_MS)).toBeNull();
    expect(undoRefusal(submit, { ...RECORD, status: 'executing' }, NOW_MS)).toBe(
      'Undo is no longer possible: command cmd_1 is executing, no longer waiting to start. Cancel it if it must stop.',
    );
    expect(undoRefusal(submit, { ...RECORD, status: 'completed' }, NOW_MS)).toMatch(
      /cmd_1 is completed/,
    );
  });

  it('lets a cancel be undone while its window is ahead', () => {
    const cancel = {
      kind: 'cancel',
      record: { ...RECORD, status: 'cancelled' },
      key: 'k2',
    } as const;
    expect(undoRefusal(cancel, undefined, NOW_MS)).toBeNull();
    expect(undoRefusal(cancel, undefined, Date.parse(RECORD.startTime))).toMatch(
      /window of command cmd_1 has already begun/,
    );
  });

  it('lets a replace be undone while the new command waits and the old window is ahead', () => {
    const replace = {
      kind: 'replace',
      old: { ...RECORD, status: 'cancelled' },
      next: { deviceId: 'BAT-1', commandId: 'cmd_2' },
      key: 'k3',
    } as const;
    const next = { ...RECORD, id: 'cmd_2', startTime: '2026-11-21T03:00:00Z' };
    expect(undoRefusal(replace, next, NOW_MS)).toBeNull();
    expect(undoRefusal(replace, { ...next, status: 'executing' }, NOW_MS)).toMatch(/cmd_2/);
    expect(undoRefusal(replace, next, Date.parse('2026-11-21T01:30:00Z'))).toMatch(
      /window of command cmd_1 has already begun/,
    );
  });
});

describe('batchUndoRefusal', () => {
  const received = (id: string): StatusRecord => ({ ...RECORD, id });
  const batch = Array.from({ length: 50 }, (_, i) => received(`cmd_${i}`));

  it('lets a batch be undone only while every one of its commands is received', () => {
    expect(batchUndoRefusal(batch)).toBeNull();
    const started = batch.map((r, i) => (i < 3 ? { ...r, status: 'executing' as const } : r));
    expect(batchUndoRefusal(started)).toBe(
      'Undo is no longer possible: 3 of 50 commands have started. Cancel the batch to stop the commands still waiting or running.',
    );
  });

  it('counts completed commands as started and names those already cancelled', () => {
    const mixed = batch.map((r, i) =>
      i === 0
        ? { ...r, status: 'completed' as const }
        : i < 3
          ? { ...r, status: 'cancelled' as const }
          : r,
    );
    expect(batchUndoRefusal(mixed)).toMatch(
      /^Undo is no longer possible: 1 of 50 commands has started and 2 of 50 are cancelled already\./,
    );
  });
});
