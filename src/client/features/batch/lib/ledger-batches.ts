import {
  BatchRequestSchema,
  endedBeforeUnbind,
  type BatchCommand,
  type BatchConfirmation,
  type UnboundDevice,
  type UnconfirmedDevice,
} from '../../../../domain/batch.ts';
import type {
  CancellationReason,
  CommandStatus,
  DeviceCommand,
} from '../../../../domain/command.ts';
import type { LedgerEntry, LedgerPage } from '../../../../domain/ledger.ts';
import { isKnownTimeZone } from '../../../lib/time.ts';

/** A batch as the BFF ledger recorded it: enough to poll and cancel it device by device. */
export interface BatchRecord {
  /** The ledger entry's ID: what names a batch whose batch ID was never learnt. */
  ledgerId: string;
  /**
   * The vendor's batch ID; absent for a batch whose answer was lost and which was found in the
   * devices' histories afterwards (docs/decisions/006, section 5): it is cancelled device by
   * device.
   */
  batchCommandId?: string | undefined;
  /** When the BFF recorded it (the ledger entry's `createdAt`, ISO 8601 UTC): the one clock. */
  submittedAt: string;
  command: DeviceCommand;
  /** Every device the batch was sent to, in the order sent. */
  deviceIds: string[];
  /** The device commands found in the devices' histories so far. */
  commands: BatchCommand[];
  /** The devices whose command is not found: not confirmed yet, or not found at all. */
  unconfirmed: UnconfirmedDevice[];
  /**
   * The devices whose site is unbound, with their command's last read status: final for the
   * batch, as their command ended before the unbind, else no longer followed (their status is
   * read no more).
   */
  unbound?: UnboundDevice[] | undefined;
  /** Where finding the device commands stands; an older entry that named them all: confirmed. */
  confirmation: BatchConfirmation;
  /** The bound site of its devices, when they all belong to one. */
  siteId?: string | undefined;
  /** The zone its times are shown on: the one the ledger recorded, else `UTC`. */
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
 * A batch as the BFF ledger recorded it (kind `batch`: the request sent, the device commands
 * found so far in the devices' histories, the devices not confirmed yet, the site's zone when its
 * devices share one), or `null` when the entry is no accepted batch: not a batch, failed, still
 * pending or of unknown outcome, or without the request. Never the browser's own zone: a batch
 * without a recorded zone is shown in UTC.
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

/** The accepted batches of a ledger page, in its order (newest first). */
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

/**
 * How one device of a batch stands: its command found, or not (yet); or its site unbound (with
 * its command when found, and its status and cancellation reason when last read): ended as it
 * was when that status is final, else no longer followed.
 */
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
 * Each device of the batch, in the order sent: its command when found, else whether it is still
 * looked for (`confirming`) or the window ended without it (`notFound`). A device the entry does
 * not mention either way counts as not confirmed yet while the batch is being confirmed, and as
 * not found once the search has ended. A device whose site is unbound is no longer followed,
 * whatever else the entry says of it.
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

/**
 * The batch's device commands found whose device is still followed: not those of a site since
 * unbound, whose status is read no more.
 */
export function followedCommands(
  record: Pick<BatchRecord, 'commands' | 'unbound'>,
): BatchRecord['commands'] {
  const unbound = new Set((record.unbound ?? []).map((u) => u.deviceId));
  return record.commands.filter((c) => !unbound.has(c.deviceId));
}

/**
 * The last statuses of the devices whose command ended (completed or cancelled) before their site
 * was unbound: counted as they ended, though their status is read no more.
 */
export function endedBeforeUnbindStatuses(
  devices: readonly BatchDeviceState[],
): { status: CommandStatus }[] {
  return devices.flatMap((device) =>
    device.kind === 'unbound' && device.lastStatus && endedBeforeUnbind(device)
      ? [{ status: device.lastStatus }]
      : [],
  );
}

/**
 * How many devices have no followed command: not confirmed yet, not found, or site unbound
 * before their command ended (those whose command ended before are counted as it ended:
 * {@link endedBeforeUnbindStatuses}).
 */
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
