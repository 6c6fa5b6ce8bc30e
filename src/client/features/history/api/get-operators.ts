import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { LedgerEntry, LedgerPage } from '#domain/ledger.ts';
import { ledgerPageQueryOptions } from '#client/commands/api/get-ledger.ts';

const LEDGER_PAGE_LIMIT = 500;

type OperatorEntry = Pick<
  LedgerEntry,
  'kind' | 'clientId' | 'operatorName' | 'commandId' | 'batchCommandId' | 'outcome'
>;

/** Who sent what: by command ID, and by batch ID for commands a batch created. */
export interface Operators {
  byCommandId: ReadonlyMap<string, string>;
  byBatchId: ReadonlyMap<string, string>;
}

/** The operators of a device's submissions and batches from ledger entries, newest first (the newest wins); name, else client ID. */
export function operatorsFromEntries(
  entries: readonly OperatorEntry[],
  deviceId: string,
): Operators {
  const byCommandId = new Map<string, string>();
  const byBatchId = new Map<string, string>();
  for (const entry of entries) {
    const who = entry.operatorName ?? entry.clientId;
    if (entry.kind === 'submit') {
      const id = entry.commandId ?? entry.outcome?.commands?.[0]?.id;
      if (id && !byCommandId.has(id)) byCommandId.set(id, who);
    } else if (entry.kind === 'batch') {
      if (entry.batchCommandId && !byBatchId.has(entry.batchCommandId))
        byBatchId.set(entry.batchCommandId, who);
      for (const command of entry.outcome?.commands ?? [])
        if (command.deviceId === deviceId && !byCommandId.has(command.id))
          byCommandId.set(command.id, who);
    }
  }
  return { byCommandId, byBatchId };
}

export function operatorOf(
  operators: Operators,
  command: { id: string; batchCommandId?: string | undefined },
): string | undefined {
  return (
    operators.byCommandId.get(command.id) ??
    (command.batchCommandId ? operators.byBatchId.get(command.batchCommandId) : undefined)
  );
}

/**
 * Who sent the device's commands: its latest 500 ledger entries (docs/architecture.md, Ledger).
 * Not retried: without the ledger the view simply has no operator column.
 */
export function useOperators(deviceId: string) {
  const select = useCallback(
    (page: LedgerPage) => operatorsFromEntries(page.entries, deviceId),
    [deviceId],
  );
  return useQuery({
    ...ledgerPageQueryOptions({ deviceId, limit: LEDGER_PAGE_LIMIT }),
    select,
    retry: false,
    staleTime: 30_000,
  });
}
