import { COMMAND_STATUSES, type StatusRecord } from '#domain/command.ts';
import type { HistorySearch } from './history-search.ts';

/** True when the cancellation-reason filter applies: only cancelled commands carry a reason. */
export const reasonFilterApplies = (status: HistorySearch['status']) =>
  status === 'all' || status === 'cancelled';

/** The commands of the status filter, and of the chosen cancellation reason (docs/upstream.md, Status record). */
export function filterCommands(
  commands: readonly StatusRecord[],
  { status, reason }: Pick<HistorySearch, 'status' | 'reason'>,
): StatusRecord[] {
  const byReason = reason !== 'all' && reasonFilterApplies(status);
  return commands.filter(
    (command) =>
      (status === 'all' || command.status === status) &&
      (!byReason || command.cancelReason === reason),
  );
}

const STATUS_ORDER = new Map(COMMAND_STATUSES.map((status, index) => [status, index]));

/** Sorts by start or lifecycle status, ties by start then ID, stable across refetches. */
export function sortCommands(
  commands: readonly StatusRecord[],
  { sort, order }: Pick<HistorySearch, 'sort' | 'order'>,
): StatusRecord[] {
  const direction = order === 'asc' ? 1 : -1;
  const byStart = (a: StatusRecord, b: StatusRecord) =>
    Date.parse(a.startTime) - Date.parse(b.startTime) || a.id.localeCompare(b.id);
  return [...commands].sort((a, b) => {
    if (sort === 'status') {
      const byStatus = (STATUS_ORDER.get(a.status) ?? 0) - (STATUS_ORDER.get(b.status) ?? 0);
      return direction * byStatus || byStart(a, b);
    }
    return direction * byStart(a, b);
  });
}
