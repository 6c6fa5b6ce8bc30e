import type { TimeRangeMs } from '../../../domain/history.ts';
import type { LedgerQuery } from '../../../domain/ledger.ts';
import type { QueuedChangeQuery } from '../../../domain/queued-change.ts';

/**
 * Query keys of device commands, generic to specific, one root per BFF path:
 *
 * - `device(id)`: everything of one device, so a mutation invalidates what it touched at once;
 *   under it `history(id, slot)`, the device's history over one fixed 30-day slot of
 *   `historyRangeSlots` (`GET /api/devices/{id}/commands`), and `status(id, commandId)`, one
 *   command's status record (`GET /api/devices/{id}/commands/{commandId}`).
 * - `ledger()`: the BFF's command ledger (`GET /api/ledger`); `ledgerPage(query)` one filtered
 *   page of it. Batches, batch cancels and who sent a command are all ledger pages.
 * - `fleetJobs()`: the client's fleet jobs (`GET /api/fleet-jobs`); `fleetJob(id)` one job with
 *   its batches and devices (`GET /api/fleet-jobs/{jobId}`).
 * - `changes()`: the account's queued changes (`GET /api/changes`), waiting for their devices'
 *   budget of upstream calls; `changesPage(query)` one filtered page of them, `change(id)` one
 *   of them (`GET /api/changes/{changeId}`).
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
