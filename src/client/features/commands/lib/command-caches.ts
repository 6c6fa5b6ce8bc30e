import type { QueryClient } from '@tanstack/react-query';
import type { StatusRecord } from '../../../../domain/command.ts';
import type { HistoryResponse } from '../../../../domain/history.ts';
import { commandKeys } from '../api/command-keys.ts';

/**
 * Replaces a command's record in every cached history list of its device that holds it, so a
 * status learnt by polling shows everywhere at once. Lists without it are left alone; unchanged
 * records keep their identity (structural sharing), so nothing re-renders for nothing.
 */
export function writeIntoHistoryLists(queryClient: QueryClient, record: StatusRecord): void {
  queryClient.setQueriesData<HistoryResponse>(
    { queryKey: commandKeys.deviceLists(record.deviceId) },
    (list) =>
      list?.commands.some((c) => c.id === record.id)
        ? { commands: list.commands.map((c) => (c.id === record.id ? record : c)) }
        : list,
  );
}

/** Newest first: by time received, then by start of the window. */
export function newestFirst(a: StatusRecord, b: StatusRecord): number {
  return (
    Date.parse(b.receivedAt) - Date.parse(a.receivedAt) ||
    Date.parse(b.startTime) - Date.parse(a.startTime)
  );
}
