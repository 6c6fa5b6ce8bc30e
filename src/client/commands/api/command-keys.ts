import type { TimeRangeMs } from '#domain/history.ts';
import type { LedgerQuery } from '#domain/ledger.ts';
import type { QueuedChangeQuery } from '#domain/queued-change.ts';

/**
 * Query keys of device commands, generic to specific, one root per BFF path: `device(id)` (under
 * it `history(id, slot)`, one 30-day slot, and `status(id, commandId)`), `ledger()` and
 * `ledgerPage(query)`, `fleetJobs()` and `fleetJob(id)`, `changes()`, `changesPage(query)` and
 * `change(id)`. A mutation invalidates a root to refresh all it touched.
 */
export const commandKeys = {
  all: ['commands'] as const,
  devices: () => [...commandKeys.all, 'device'] as const,
  device: (deviceId: string) => [...commandKeys.devices(), deviceId] as const,
  histories: (deviceId: string) => [...commandKeys.device(deviceId), 'history'] as const,
  history: (deviceId: string, slot: TimeRangeMs) =>
    [...commandKeys.histories(deviceId), slot.startMs, slot.endMs] as const,
  statuses: (deviceId: string) => [...commandKeys.device(deviceId), 'status'] as const,
  status: (deviceId: string, commandId: string) =>
    [...commandKeys.statuses(deviceId), commandId] as const,
  ledger: () => [...commandKeys.all, 'ledger'] as const,
  ledgerPage: (query: LedgerQuery) => [...commandKeys.ledger(), query] as const,
  fleetJobs: () => [...commandKeys.all, 'fleet-jobs'] as const,
  fleetJob: (jobId: string) => [...commandKeys.fleetJobs(), jobId] as const,
  changes: () => [...commandKeys.all, 'changes'] as const,
  changesPage: (query: QueuedChangeQuery) => [...commandKeys.changes(), 'page', query] as const,
  change: (changeId: string) => [...commandKeys.changes(), changeId] as const,
};
