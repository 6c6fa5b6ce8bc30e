import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '#domain/ledger.ts';
import { batchCancelFromLedger, latestBatchCancel } from '../ledger-batch-cancels.ts';

const results = [
  { deviceId: 'BAT-1', commandId: 'cmd_1', success: true, status: 'cancelled' as const },
  { deviceId: 'BAT-2', commandId: 'cmd_2', success: false, status: 'completed' as const },
];
const entry = (overrides: Partial<LedgerEntry>): LedgerEntry => ({
  id: '7',
  kind: 'batchCancel',
  state: 'succeeded',
  region: 'eu',
  clientId: 'demo-eu',
  batchCommandId: 'batch_1',
  outcome: { status: 200, results },
  createdAt: '2026-11-21T10:00:00Z',
  ...overrides,
});

describe('batchCancelFromLedger', () => {
  it('reads when, who and every per-device result, failures kept as failures', () => {
    expect(batchCancelFromLedger(entry({ operatorName: 'Olga' }))).toEqual({
      at: '2026-11-21T10:00:00Z',
      by: 'Olga',
      results,
    });
    expect(batchCancelFromLedger(entry({}))?.by).toBe('demo-eu');
  });

  it('has nothing to show for other kinds, refused or unsettled cancels, or no results', () => {
    expect(batchCancelFromLedger(entry({ kind: 'batch' }))).toBeNull();
    expect(batchCancelFromLedger(entry({ state: 'failed' }))).toBeNull();
    expect(batchCancelFromLedger(entry({ state: 'unknown', outcome: {} }))).toBeNull();
    expect(batchCancelFromLedger(entry({ outcome: { status: 200, results: [] } }))).toBeNull();
  });
});

describe('latestBatchCancel', () => {
  it('takes the newest entry with results, skipping a newer refused one', () => {
    const refused = entry({ id: '9', state: 'failed', createdAt: '2026-11-21T11:00:00Z' });
    const older = entry({ id: '5', createdAt: '2026-11-21T09:00:00Z' });
    expect(latestBatchCancel([refused, entry({}), older])?.at).toBe('2026-11-21T10:00:00Z');
    expect(latestBatchCancel([refused])).toBeNull();
  });
});
