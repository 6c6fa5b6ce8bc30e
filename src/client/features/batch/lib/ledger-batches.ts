import {
  BatchRequestSchema,
  endedBeforeUnbind,
  type BatchCommand,
  type BatchConfirmation,
  type UnboundDevice,
  type UnconfirmedDevice,
} from '#domain/batch.ts';
import type { CancellationReason, CommandStatus, DeviceCommand } from '#domain/command.ts';
import type { LedgerEntry, LedgerPage } from '#domain/ledger.ts';
import { isKnownTimeZone } from '#client/lib/time.ts';

/** A batch as the BFF ledger recorded it: enough to poll and cancel it device by device. */
export interface BatchRecord {
  /** The ledger entry's ID: what names a batch whose batch ID was never learnt. */
  ledgerId: string;
  /** Absent when the answer was lost and the batch found in histories (docs/decisions/006, section 5): cancelled device by device. */
  batchCommandId?: string | undefined;
  /** When the BFF recorded it (the ledger entry's `createdAt`, ISO 8601 UTC): the one clock. */
  submittedAt: string;
  command: DeviceCommand;
  deviceIds: string[];
  commands: BatchCommand[];
  unconfirmed: UnconfirmedDevice[];
  /** Devices whose site is unbound, with their command's last read status (read no more). */
  unbound?: UnboundDevice[] | undefined;
  /** Where finding the device commands stands; an older entry that named them all: confirmed. */
  confirmation: BatchConfirmation;
  siteId?: string | undefined;
  /** The zone its times are shown on: the one the ledger recorded, else `UTC`. */
  timeZone: string;
  /** False when the ledger recorded no zone the browser knows: times in UTC, and the screens say so. */
  timeZoneRecorded: boolean;
  submittedBy: string;
}

/**
 * A ledger `batch` entry as a batch, or `null` when it is no accepted batch. A batch without a
 * recorded zone is shown in UTC, never the browser's zone.
 */
export function batchRecordFromLedger(entry: LedgerEntry): BatchRecord | null {
  if (entry.kind !== 'batch' || entry.state !== 'succeeded') return null;
  const request = BatchRequestSchema.safeParse(entry.request);
  if (!request.success) return null;
  const commands = entry.outcome?.commands ?? [];
  const unconfirmed = entry.outcome?.unconfirmed ?? [];
  // An entry of an earlier version named every command in its answer: confirmed when complete.
  const confirmation =
    entry.outcome?.confirmation ??
    (commands.length >= request.data.devices.length ? 'confirmed' : 'confirming');
  const recorded = entry.timeZone !== undefined && isKnownTimeZone(entry.timeZone);
  return {
    ledgerId: entry.id,
    batchCommandId: entry.batchCommandId,
    submittedAt: entry.createdAt,
    command: request.data.command,
    deviceIds: request.data.devices,
    commands,
    unconfirmed,
    unbound: entry.outcome?.unbound ?? [],
    confirmation,
    siteId: entry.siteId,
    timeZone: recorded && entry.timeZone ? entry.timeZone : 'UTC',
    timeZoneRecorded: recorded,
    submittedBy: entry.operatorName ?? entry.clientId,
  };
}

export function batchesOfPage(page: LedgerPage): BatchRecord[] {
  return page.entries.flatMap((entry) => {
    const record = batchRecordFromLedger(entry);
    return record ? [record] : [];
  });
}

/** Where a batch's page is: by its batch ID, else by its ledger entry. */
export function batchPath(record: Pick<BatchRecord, 'batchCommandId' | 'ledgerId'>): string {
  return record.batchCommandId
    ? `/batches/${encodeURIComponent(record.batchCommandId)}`
    : `/batches/entry/${encodeURIComponent(record.ledgerId)}`;
}

/** One device: its command found, or not (yet), or its site unbound (ended as it was if final, else unfollowed). */
export type BatchDeviceState =
  | { kind: 'found'; deviceId: string; commandId: string }
  | {
      kind: 'unbound';
      deviceId: string;
      commandId?: string | undefined;
      lastStatus?: CommandStatus | undefined;
      lastCancelReason?: CancellationReason | undefined;
    }
  | { kind: 'confirming'; deviceId: string }
  | { kind: 'notFound'; deviceId: string };

/**
 * Each device in order sent: found, `confirming`, or `notFound`; one the entry does not mention is
 * confirming while the batch is, else not found. A device of an unbound site is unfollowed.
 */
export function batchDevices(
  record: Pick<BatchRecord, 'deviceIds' | 'commands' | 'unconfirmed' | 'confirmation' | 'unbound'>,
): BatchDeviceState[] {
  const found = new Map(record.commands.map((c) => [c.deviceId, c.id]));
  const pending = new Map(record.unconfirmed.map((u) => [u.deviceId, u.state]));
  const unbound = new Map((record.unbound ?? []).map((u) => [u.deviceId, u]));
  const ids = [...new Set([...record.deviceIds, ...found.keys()])];
  return ids.map((deviceId): BatchDeviceState => {
    const commandId = found.get(deviceId);
    const last = unbound.get(deviceId);
    if (last)
      return {
        kind: 'unbound',
        deviceId,
        commandId,
        lastStatus: last.lastStatus,
        lastCancelReason: last.lastCancelReason,
      };
    if (commandId !== undefined) return { kind: 'found', deviceId, commandId };
    const state = pending.get(deviceId);
    if (state === 'notFound') return { kind: 'notFound', deviceId };
    if (state === 'confirming' || record.confirmation === 'confirming')
      return { kind: 'confirming', deviceId };
    return { kind: 'notFound', deviceId };
  });
}

/** The found commands whose device is still followed (not of a since-unbound site). */
export function followedCommands(
  record: Pick<BatchRecord, 'commands' | 'unbound'>,
): BatchRecord['commands'] {
  const unbound = new Set((record.unbound ?? []).map((u) => u.deviceId));
  return record.commands.filter((c) => !unbound.has(c.deviceId));
}

/** Last statuses of commands that ended before their site was unbound: counted as they ended. */
export function endedBeforeUnbindStatuses(
  devices: readonly BatchDeviceState[],
): { status: CommandStatus }[] {
  return devices.flatMap((device) =>
    device.kind === 'unbound' && device.lastStatus && endedBeforeUnbind(device)
      ? [{ status: device.lastStatus }]
      : [],
  );
}

/** Devices with no followed command: unconfirmed, not found, or unbound before their command ended. */
export function unfollowedCounts(devices: readonly BatchDeviceState[]): {
  confirming: number;
  notFound: number;
  unbound: number;
} {
  const count = (kind: BatchDeviceState['kind']) => devices.filter((d) => d.kind === kind).length;
  return {
    confirming: count('confirming'),
    notFound: count('notFound'),
    unbound: devices.filter((d) => d.kind === 'unbound' && !endedBeforeUnbind(d)).length,
  };
}

/** How often a batch still being confirmed is read again from the ledger, in ms. */
export const CONFIRMING_REFRESH_MS = 5000;

/** True while any batch of the page is still being confirmed: its page reads it again. */
export function anyConfirming(page: LedgerPage | undefined): boolean {
  return (page ? batchesOfPage(page) : []).some((record) => record.confirmation === 'confirming');
}
