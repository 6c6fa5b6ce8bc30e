import { MAX_HISTORY_RANGE_MS, historyRangeSlots } from './history.ts';

/**
 * When the read model reads a device's history next (docs/decisions/007-device-call-budget.md,
 * section 3; docs/architecture.md, Read model), as pure arithmetic. Every time is epoch ms on the
 * UPSTREAM's clock.
 *
 * A device is read only while something about it can change that the BFF would not otherwise
 * learn: a command not final yet (read just after the moments its state can change: its window's
 * start, the end of the minute an offline device is given to come online, its window's end), a
 * batch whose command on the device is not found yet (just after the batch, then now and then
 * until its window ends), history a page asked for, and a device never read (its backfill).
 * Besides, a device with an open command is read every `openEveryMs` (a fault or a cancel made
 * outside powerdeck can come at any moment), and one without every `idleEveryMs` when that is set
 * (a command made outside powerdeck). The budget decides whether the read goes at that time or
 * later (`DeviceBudgetStore.reserve`).
 */

/** Why a device is read. */
export const READ_REASONS = [
  'backfill',
  'requestedHistory',
  'batchConfirmation',
  'windowStart',
  'startExpiry',
  'windowEnd',
  'stillOpen',
  'openCommands',
  'idle',
] as const;
export type ReadReason = (typeof READ_REASONS)[number];

/** How long after a moment a state can change the device is read: the vendor's own lag. */
export const DEFAULT_READ_ALLOWANCE_MS = 5_000;
/** How often a device with an open command is read besides its moments (`DEVICE_READ_OPEN_EVERY_S`). */
export const DEFAULT_OPEN_READ_EVERY_MS = 5 * 60_000;
/** How often a device without open commands is read (`DEVICE_READ_IDLE_EVERY_S`; 0: never). */
export const DEFAULT_IDLE_READ_EVERY_MS = 30 * 60_000;
/**
 * How long after a read that found a command still not final past its last moment (the vendor is
 * late), or a batch's command not found yet, the device is read again.
 */
export const DEFAULT_RETRY_READ_MS = 30_000;
/**
 * How long after its start an offline device is given to come online before its command is
 * cancelled `startTimeExpire` (docs/upstream.md, Lifecycle).
 */
export const START_EXPIRY_MS = 60_000;

/** The read model's timings, ms. */
export interface RefreshSettings {
  allowanceMs: number;
  openEveryMs: number;
  /** 0: devices without open commands are not read (but for the other reasons). */
  idleEveryMs: number;
  retryMs: number;
}

export const DEFAULT_REFRESH_SETTINGS: RefreshSettings = {
  allowanceMs: DEFAULT_READ_ALLOWANCE_MS,
  openEveryMs: DEFAULT_OPEN_READ_EVERY_MS,
  idleEveryMs: DEFAULT_IDLE_READ_EVERY_MS,
  retryMs: DEFAULT_RETRY_READ_MS,
};

/** A command of the device that is not final, as the read model last knew it. */
export interface OpenCommand {
  status: 'received' | 'executing';
  startMs: number;
  endMs: number;
}

/** A batch whose command on this device is not found yet. */
export interface PendingConfirmation {
  /** When the vendor answered the batch. */
  sentAtMs: number;
  startMs: number;
  endMs: number;
}

/** What the policy knows of one device. */
export interface DeviceRefreshState {
  /** When its history was last read; undefined: never (it is due for its backfill). */
  lastReadAtMs?: number | undefined;
  openCommands: readonly OpenCommand[];
  confirmations: readonly PendingConfirmation[];
  /** History ranges a page asked for that are not read yet (slot starts, ms). */
  requestedSlots: readonly number[];
  /**
   * History ranges read to their last page (slot starts, ms), the one read longest ago first
   * ({@link slotsReadAfter}); absent: none. Decides which open range a read takes first.
   */
  slotsRead?: readonly number[] | undefined;
}

/** The next read of a device: when and why. */
export interface NextRead {
  atMs: number;
  reason: ReadReason;
}

/**
 * When `device` should be read next, or undefined when nothing about it calls for a read.
 *
 * @param nowMs the upstream clock now; a read due earlier is due now.
 */
export function nextReadOf(
  device: DeviceRefreshState,
  nowMs: number,
  settings: RefreshSettings = DEFAULT_REFRESH_SETTINGS,
): NextRead | undefined {
  const candidates: NextRead[] = [];
  // A last read later than now (the upstream's clock went back: the sandbox's reset does that)
  // saw nothing after now: it counts as made now, so the moments ahead are read again.
  const lastReadAtMs =
    device.lastReadAtMs === undefined ? undefined : Math.min(device.lastReadAtMs, nowMs);
  const readSince = (atMs: number) => lastReadAtMs !== undefined && lastReadAtMs >= atMs;
  if (lastReadAtMs === undefined) candidates.push({ atMs: nowMs, reason: 'backfill' });
  if (device.requestedSlots.length > 0)
    candidates.push({ atMs: nowMs, reason: 'requestedHistory' });

  for (const command of device.openCommands) {
    const moments: NextRead[] =
      command.status === 'received'
        ? [
            { atMs: command.startMs, reason: 'windowStart' },
            {
              atMs: Math.min(command.startMs + START_EXPIRY_MS, command.endMs),
              reason: 'startExpiry',
            },
            { atMs: command.endMs, reason: 'windowEnd' },
          ]
        : [{ atMs: command.endMs, reason: 'windowEnd' }];
    const next = moments
      .map((moment) => ({ ...moment, atMs: moment.atMs + settings.allowanceMs }))
      .find((moment) => !readSince(moment.atMs));
    // Every moment is past and read, yet the command is not final: the vendor is late.
    candidates.push(
      next ?? { atMs: (lastReadAtMs ?? nowMs) + settings.retryMs, reason: 'stillOpen' },
    );
  }
  if (device.openCommands.length > 0 && lastReadAtMs !== undefined)
    candidates.push({ atMs: lastReadAtMs + settings.openEveryMs, reason: 'openCommands' });

  for (const batch of device.confirmations) {
    const firstMs = batch.sentAtMs + settings.allowanceMs;
    const lastMs = batch.endMs + settings.allowanceMs;
    const atMs = !readSince(firstMs)
      ? firstMs
      : readSince(lastMs)
        ? // Read after the window ended and still not found: the read settles it as not found.
          nowMs
        : Math.min((lastReadAtMs ?? nowMs) + settings.retryMs, lastMs);
    candidates.push({ atMs, reason: 'batchConfirmation' });
  }

  if (
    settings.idleEveryMs > 0 &&
    lastReadAtMs !== undefined &&
    device.openCommands.length === 0 &&
    device.confirmations.length === 0
  )
    candidates.push({ atMs: lastReadAtMs + settings.idleEveryMs, reason: 'idle' });

  const earliestOf = (reads: readonly NextRead[]) =>
    reads.reduce<NextRead | undefined>(
      (earliest, candidate) => (!earliest || candidate.atMs < earliest.atMs ? candidate : earliest),
      undefined,
    );
  let first = earliestOf(candidates);
  if (first?.reason === 'backfill') {
    // A read due within the allowance (a batch just sent) covers the backfill too: one call, not
    // two of the device's two a minute.
    const soon = earliestOf(
      candidates.filter((c) => c.reason !== 'backfill' && c.atMs <= nowMs + settings.allowanceMs),
    );
    first = soon ?? first;
  }
  return first && { ...first, atMs: Math.max(first.atMs, nowMs) };
}

/**
 * The history ranges whose reading tells the device's present (fixed 30-day slots, domain
 * `historyRangeSlots`), as slot starts, ascending: the slots holding its open commands' windows
 * and its pending batches' windows, and the slot holding `nowMs` on its backfill or when there is
 * none of those and no page asked for older history. Empty: only asked-for history is to read.
 */
export function liveSlotsOf(device: DeviceRefreshState, nowMs: number): number[] {
  const slots = new Set<number>();
  const add = (startMs: number, endMs: number) => {
    for (const slot of historyRangeSlots(startMs, endMs)) slots.add(slot.startMs);
  };
  for (const command of device.openCommands) add(command.startMs, command.endMs);
  for (const batch of device.confirmations) add(batch.startMs, batch.startMs + 1);
  if (device.lastReadAtMs === undefined || (slots.size === 0 && device.requestedSlots.length === 0))
    add(nowMs, nowMs + 1);
  return [...slots].sort((a, b) => a - b);
}

/**
 * The history ranges one read of the device covers, in the order they are read: its live slots
 * first ({@link liveSlotsOf}), the one never read or read longest ago first (`slotsRead`), then
 * the slots pages asked for, newest first, so pages paging back through old history never hold up
 * the reads that move its commands' states on.
 *
 * Each page of a read takes one of the device's calls, and a read never takes a device's last
 * free call of the minute (`callsKeptForChanges` in `device-budget.ts`): at the vendor's 2 calls
 * a minute one read reads one page, and a read that stops for the budget starts again at the top
 * of this list. Taking the range read longest ago first makes every open range of a device read
 * within as many of its reads as it has open ranges (docs/architecture.md, Read model, "Every
 * open range in turn"); taken in time order, a range after the first would never be read while
 * the first is open.
 */
export function slotsToRead(device: DeviceRefreshState, nowMs: number): number[] {
  const read = device.slotsRead ?? [];
  // Never read: before every range read (-1), earliest first as the stable sort keeps them.
  const live = liveSlotsOf(device, nowMs).sort((a, b) => read.indexOf(a) - read.indexOf(b));
  const asked = [...new Set(device.requestedSlots)]
    .filter((slot) => !live.includes(slot))
    .sort((a, b) => b - a);
  return [...live, ...asked];
}

/**
 * The ranges read to their last page after a read finished `completeSlots` (in the order it read
 * them): those move to the end of `slotsRead`, the others keep their order, so the list stays
 * ordered from the range read longest ago to the last one read ({@link slotsToRead}).
 */
export function slotsReadAfter(
  slotsRead: readonly number[],
  completeSlots: readonly number[],
): number[] {
  const finished = [...new Set(completeSlots)];
  return [...slotsRead.filter((slot) => !finished.includes(slot)), ...finished];
}

/** The slot start of the 30-day history range holding `atMs`. */
export function slotOf(atMs: number): number {
  return Math.floor(atMs / MAX_HISTORY_RANGE_MS) * MAX_HISTORY_RANGE_MS;
}
