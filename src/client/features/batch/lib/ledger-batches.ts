import { BatchRequestSchema } from '../../../../domain/batch.ts';
import type { DeviceCommand } from '../../../../domain/command.ts';
import type { LedgerEntry, LedgerPage } from '../../../../domain/ledger.ts';
import { isKnownTimeZone } from '../../../lib/time.ts';

/** A batch as the BFF ledger recorded it: enough to poll and cancel it device by device. */
export interface BatchRecord {
  batchCommandId: string;
  /** When the BFF recorded it (the ledger entry's `createdAt`, ISO 8601 UTC): the one clock. */
  submittedAt: string;
  command: DeviceCommand;
  /** One device command per device, as the submission answered. */
  commands: { deviceId: string; id: string }[];
  /** The IANA zone its times are shown on: the one the ledger recorded, else `UTC`. */
  timeZone: string;
  /**
   * False when the ledger recorded no zone the browser knows (an older entry, or devices in sites
   * of different zones): the times are then in UTC, and the screens say so.
   */
  timeZoneRecorded: boolean;
  /** The operator's name, else the client ID that sent it. */
  submittedBy: string;
}

/**
 * A batch as the BFF ledger recorded it (kind `batch`: the request sent, the device commands the
 * upstream created, the site's zone when its devices share one), or `null` when the entry is no
 * accepted batch: not a batch, failed or still pending, or without the request or its commands.
 * Never the browser's own zone: a batch without a recorded zone is shown in UTC.
 */
export function batchRecordFromLedger(entry: LedgerEntry): BatchRecord | null {
  if (entry.kind !== 'batch' || entry.state !== 'succeeded' || !entry.batchCommandId) return null;
  const request = BatchRequestSchema.safeParse(entry.request);
  const commands = entry.outcome?.commands;
  if (!request.success || !commands || commands.length === 0) return null;
  const recorded = entry.timeZone !== undefined && isKnownTimeZone(entry.timeZone);
  return {
    batchCommandId: entry.batchCommandId,
    submittedAt: entry.createdAt,
    command: request.data.command,
    commands,
    timeZone: recorded && entry.timeZone ? entry.timeZone : 'UTC',
    timeZoneRecorded: recorded,
    submittedBy: entry.operatorName ?? entry.clientId,
  };
}

/** The accepted batches of a ledger page, in its order (newest first). */
export function batchesOfPage(page: LedgerPage): BatchRecord[] {
  return page.entries.flatMap((entry) => {
    const record = batchRecordFromLedger(entry);
    return record ? [record] : [];
  });
}
