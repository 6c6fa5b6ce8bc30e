import type { QueryClient } from '@tanstack/react-query';
import type { CommandStatus, StatusRecord } from '../../../domain/command.ts';
import type { HistoryResponse, TimeRangeMs } from '../../../domain/history.ts';
import { commandKeys } from '../api/command-keys.ts';

/**
 * The one writer of status records into the history cache: replaces the command's record in
 * every cached history slot of its device that holds it, so a status learnt by polling or by a
 * cancel's answer shows on every screen at once. Slots without it are left alone (a mutation
 * invalidates them); unchanged records keep their identity (structural sharing). A slot a
 * mutation invalidated is left alone too: writing would mark it fresh again (TanStack Query
 * clears `isInvalidated` on every write), and it is about to be read again whole anyway.
 */
export function writeStatusIntoHistory(queryClient: QueryClient, record: StatusRecord): void {
  const slots = queryClient
    .getQueryCache()
    .findAll({ queryKey: commandKeys.histories(record.deviceId) });
  for (const query of slots) {
    if (query.state.isInvalidated) continue;
    const slot = queryClient.getQueryData<HistoryResponse>(query.queryKey);
    if (slot?.commands.some((c) => c.id === record.id))
      queryClient.setQueryData<HistoryResponse>(query.queryKey, {
        commands: slot.commands.map((c) => (c.id === record.id ? record : c)),
      });
  }
}

/**
 * After a submission, a cancel, a batch or a batch cancel: everything cached of the devices it
 * touched (history slots, status records), the ledger and the queued changes are read again, by every screen that
 * shows them now and by the others when they next show them. Resolves once the screens on view
 * have their new data.
 */
export async function invalidateDeviceCommands(
  queryClient: QueryClient,
  deviceIds: Iterable<string>,
): Promise<void> {
  await Promise.all([
    ...[...new Set(deviceIds)].map((deviceId) =>
      queryClient.invalidateQueries({ queryKey: commandKeys.device(deviceId) }),
    ),
    queryClient.invalidateQueries({ queryKey: commandKeys.ledger() }),
    // A change may have been queued for its devices' budget of upstream calls instead of sent.
    queryClient.invalidateQueries({ queryKey: commandKeys.changes() }),
  ]);
}

const STATUS_RANK: Record<CommandStatus, number> = {
  received: 0,
  executing: 1,
  completed: 2,
  cancelled: 2,
};

/**
 * Merges the records of several history slots (a window crossing a slot border is in both), one
 * per command ID; when two copies differ the later lifecycle status wins, since status only
 * moves forward (docs/upstream.md, Lifecycle). Sorted by start time.
 */
export function mergeRecords(lists: Iterable<readonly StatusRecord[]>): StatusRecord[] {
  const byId = new Map<string, StatusRecord>();
  for (const list of lists)
    for (const record of list) {
      const known = byId.get(record.id);
      if (!known || STATUS_RANK[record.status] > STATUS_RANK[known.status])
        byId.set(record.id, record);
    }
  return [...byId.values()].sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
}

/**
 * The records whose effective window meets `[startMs, endMs)`, as the history query itself
 * answers a range (docs/architecture.md, Upstream contract: History): what a screen showing that
 * range keeps of a 30-day slot.
 */
export function recordsMeeting(
  records: readonly StatusRecord[],
  { startMs, endMs }: TimeRangeMs,
): StatusRecord[] {
  return records.filter(
    (record) => Date.parse(record.startTime) < endMs && Date.parse(record.endTime) > startMs,
  );
}
