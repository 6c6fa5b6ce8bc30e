import { describe, expect, it } from 'vitest';
import type { OverviewCommand } from '#domain/overview.ts';
import { foldBatchLines } from '../batch-folds.ts';

const line = (deviceId: string, batchCommandId?: string): OverviewCommand => ({
  deviceId,
  commandId: `CMD-${deviceId}`,
  ...(batchCommandId ? { batchCommandId } : {}),
});

describe('foldBatchLines', () => {
  it("folds a batch's lines into one entry where its first line was, keeping the others' order", () => {
    const entries = foldBatchLines([
      line('A'),
      line('B1', 'BATCH-1'),
      line('C'),
      line('B2', 'BATCH-1'),
      line('B3', 'BATCH-1'),
    ]);
    expect(
      entries.map((e) =>
        e.kind === 'line'
          ? e.line.deviceId
          : `${e.batchCommandId}: ${e.lines.map((l) => l.deviceId).join(' ')}`,
      ),
    ).toEqual(['A', 'BATCH-1: B1 B2 B3', 'C']);
  });

  it('leaves a batch with one line in the section as a line', () => {
    expect(foldBatchLines([line('B1', 'BATCH-1'), line('A')])).toEqual([
      { kind: 'line', line: line('B1', 'BATCH-1') },
      { kind: 'line', line: line('A') },
    ]);
  });
});
