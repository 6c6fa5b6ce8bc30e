import { MAX_HISTORY_RANGE_MS, historyRangeSlots } from './history.ts';

/**
 * When the read model reads a device's history next (decision record 007, section 3;
 * docs/architecture.md, Read model). Times are epoch ms on the UPSTREAM's clock; the budget then
 * decides whether the read goes then or later.
 */

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

/** The vendor's own lag after a moment a state can change. */
export const DEFAULT_READ_ALLOWANCE_MS = 5_000;
/** `DEVICE_READ_OPEN_EVERY_S`: a fault or an outside cancel can come at any moment. */
export const DEFAULT_OPEN_READ_EVERY_MS = 5 * 60_000;
/** `DEVICE_READ_IDLE_EVERY_S`; 0: never. */
export const DEFAULT_IDLE_READ_EVERY_MS = 30 * 60_000;
/** After a read found the vendor late, or a batch's command not found yet. */
export const DEFAULT_RETRY_READ_MS = 30_000;
/** docs/upstream.md, Lifecycle. */
export const START_EXPIRY_MS = 60_000;

export interface RefreshSettings {
  allowanceMs: number;
  openEveryMs: number;
  idleEveryMs: number;
  retryMs: number;
}

export const DEFAULT_REFRESH_SETTINGS: RefreshSettings = {
  allowanceMs: DEFAULT_READ_ALLOWANCE_MS,
  openEveryMs: DEFAULT_OPEN_READ_EVERY_MS,
  idleEveryMs: DEFAULT_IDLE_READ_EVERY_MS,
  retryMs: DEFAULT_RETRY_READ_MS,
};

export interface OpenCommand {
  status: 'received' | 'executing';
  startMs: number;
  endMs: number;
}

export interface PendingConfirmation {
  sentAtMs: number;
  startMs: number;
  endMs: number;
}

export interface DeviceRefreshState {
  /** Undefined: never (due for its backfill). */
  lastReadAtMs?: number | undefined;
  openCommands: readonly OpenCommand[];
  confirmations: readonly PendingConfirmation[];
  /** Slot starts, ms. */
  requestedSlots: readonly number[];
  /** Oldest read first ({@link slotsReadAfter}); absent: none. */
  slotsRead?: readonly number[] | undefined;
}

export interface NextRead {
  atMs: number;
  reason: ReadReason;
}

/** Undefined when nothing calls for a read; a read due before `nowMs` is due now. */
export function nextReadOf(
  device: DeviceRefreshState,
  nowMs: number,
  settings: RefreshSettings = DEFAULT_REFRESH_SETTINGS,
): NextRead | undefined {
  const candidates: NextRead[] = [];
  // A last read after now (the upstream clock went back, as a sandbox reset does) counts as now.
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
    // A read due within the allowance covers the backfill too: one call, not two.
    const soon = earliestOf(
      candidates.filter((c) => c.reason !== 'backfill' && c.atMs <= nowMs + settings.allowanceMs),
    );
    first = soon ?? first;
  }
  return first && { ...first, atMs: Math.max(first.atMs, nowMs) };
}

/** Slot starts, ascending. Empty: only asked-for history is to read. */
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
 * Live slots first, the one read longest ago first, then asked-for slots newest first, so paging
 * back never holds up live reads. A read stopped by the budget restarts at the top, so every open
 * range is read in turn (docs/architecture.md, Read model, "Every open range in turn").
 */
export function slotsToRead(device: DeviceRefreshState, nowMs: number): number[] {
  const read = device.slotsRead ?? [];
  // Never read sorts before every range read (-1).
  const live = liveSlotsOf(device, nowMs).sort((a, b) => read.indexOf(a) - read.indexOf(b));
  const asked = [...new Set(device.requestedSlots)]
    .filter((slot) => !live.includes(slot))
    .sort((a, b) => b - a);
  return [...live, ...asked];
}

/** Moves `completeSlots` to the end, so the list stays oldest read first. */
export function slotsReadAfter(
  slotsRead: readonly number[],
  completeSlots: readonly number[],
): number[] {
  const finished = [...new Set(completeSlots)];
  return [...slotsRead.filter((slot) => !finished.includes(slot)), ...finished];
}

/** The start of the 30-day history slot holding `atMs`. */
export function slotOf(atMs: number): number {
  return Math.floor(atMs / MAX_HISTORY_RANGE_MS) * MAX_HISTORY_RANGE_MS;
}
