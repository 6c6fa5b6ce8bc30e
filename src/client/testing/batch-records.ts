import type { CommandStatus, StatusRecord } from '#domain/command.ts';
import type { LedgerEntry } from '#domain/ledger.ts';
import type { PowerControl } from '#domain/power-control.ts';
import type { BatchRecord } from '../features/batch/lib/ledger-batches.ts';

/** The command of the test batches: `powerControl` over 11:00–12:00 UTC on 2026-11-21. */
export function batchCommandOf(powerControl: PowerControl) {
  return { powerControl, startTime: '2026-11-21T11:00:00Z', endTime: '2026-11-21T12:00:00Z' };
}

/**
 * Batch `batch_1` of a 1 kW discharge ({@link batchCommandOf}) to `deviceId` alone, as the ledger
 * lists it once the vendor accepted it; `fields` give its entry's ID, region, outcome, zone and time.
 */
export function oneDeviceBatchEntry(
  deviceId: string,
  fields: Pick<LedgerEntry, 'id' | 'region' | 'clientId' | 'outcome' | 'timeZone' | 'createdAt'> &
    Partial<LedgerEntry>,
): LedgerEntry {
  return {
    kind: 'batch',
    state: 'succeeded',
    batchCommandId: 'batch_1',
    deviceIds: [deviceId],
    request: { devices: [deviceId], command: batchCommandOf({ targetBatteryPowerW: 1000 }) },
    ...fields,
  };
}

/**
 * Batch `batch_1` of `command` to BAT-1, BAT-2 and BAT-3 (their commands `cmd_1` to `cmd_3` all
 * found), sent by Ada at 10:00 UTC on 2026-11-21 from a site in Berlin.
 */
export function threeDeviceBatch(command: ReturnType<typeof batchCommandOf>): BatchRecord {
  return {
    ledgerId: '10',
    batchCommandId: 'batch_1',
    submittedAt: '2026-11-21T10:00:00Z',
    command,
    deviceIds: ['BAT-1', 'BAT-2', 'BAT-3'],
    unconfirmed: [],
    confirmation: 'confirmed',
    commands: [
      { deviceId: 'BAT-1', id: 'cmd_1' },
      { deviceId: 'BAT-2', id: 'cmd_2' },
      { deviceId: 'BAT-3', id: 'cmd_3' },
    ],
    timeZone: 'Europe/Berlin',
    timeZoneRecorded: true,
    submittedBy: 'Ada',
  };
}

/**
 * Makes the status records of a batch's device commands: `command` on `deviceId` as `id`, in
 * `status` unless `more` says otherwise, received at 10:00 UTC.
 */
export function batchStatusOf(command: ReturnType<typeof batchCommandOf>, status: CommandStatus) {
  return (deviceId: string, id: string, more: Partial<StatusRecord> = {}): StatusRecord => ({
    ...command,
    id,
    deviceId,
    status,
    receivedAt: '2026-11-21T10:00:00Z',
    ...more,
  });
}
