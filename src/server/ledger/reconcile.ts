import type { StatusRecord } from '../../domain/command.ts';
import { historyRangeSlots } from '../../domain/history.ts';
import type { PowerControl } from '../../domain/power-control.ts';
import { POWER_CONTROL_PROPERTIES } from '../../domain/power-control.ts';
import type { TimeWindow } from '../../domain/time-window.ts';

/** What a submission or batch asked for: the devices, the window and the power control. */
export interface UnsettledSubmission {
  deviceIds: string[];
  startTime: string;
  endTime: string;
  powerControl: PowerControl;
  /** True for a batch. */
  batch: boolean;
}

/** Reads one device's command history over a range (the adapter's `history`). */
export type ReadHistory = (deviceId: string, range: TimeWindow) => Promise<StatusRecord[]>;

/**
 * How far the vendor's clock may run behind the BFF's: a command received up to this long
 * before its ledger entry was written may still be that entry's.
 */
export const CLOCK_ALLOWANCE_MS = 2 * 60_000;

/** What {@link findSubmittedCommands} learnt from the devices' histories. */
export interface SubmittedCommands {
  /** The command found per device; devices without one are left out. */
  found: Map<string, StatusRecord>;
  /** The devices whose history could not be read: whether they hold one is not known. */
  unread: string[];
}

/**
 * The device commands of a submission or batch found in the devices' histories (docs/decisions/006,
 * section 5; docs/architecture.md, Ledger): per device, a command with the same effective window
 * and power control, received no earlier than the entry was written (less
 * {@link CLOCK_ALLOWANCE_MS}), and not attributed to another ledger entry. Of several, the one
 * received closest to the entry's writing. Never sends anything.
 *
 * One command found settles a batch: the upstream carried it out, and the read model looks for the
 * other devices' commands. So a history that cannot be read does not end the search; it matters
 * only when nothing was found, since that device may hold the command.
 *
 * @param sentAtMs when it was sent, epoch ms: the vendor's time of its answer when there was
 *   one, else when its ledger entry was written.
 * @param known command IDs per device that other ledger entries hold.
 * @returns `found`, the record found per device (devices without one are left out), and
 *   `unread`, the devices whose history could not be read.
 * @throws the first failure to read a history (a ProblemError from the upstream) when no command
 *   was found.
 */
export async function findSubmittedCommands(
  readHistory: ReadHistory,
  submission: UnsettledSubmission,
  sentAtMs: number,
  known: (deviceId: string) => Promise<Set<string>>,
  deviceIds: readonly string[] = submission.deviceIds,
  concurrency = 4,
): Promise<SubmittedCommands> {
  const found = new Map<string, StatusRecord>();
  const unread: string[] = [];
  const range = historyRange(submission);
  const queue = [...deviceIds];
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    for (let deviceId = queue.shift(); deviceId !== undefined; deviceId = queue.shift()) {
      try {
        const [records, taken] = await Promise.all([readHistory(deviceId, range), known(deviceId)]);
        const match = matchSubmittedCommand(records, submission, sentAtMs, taken);
        if (match) found.set(deviceId, match);
      } catch (error) {
        unread.push(deviceId);
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  if (found.size === 0 && failure) throw failure.error;
  return { found, unread };
}

/**
 * The command of `records` (one device's) that a submission or batch sent at `sentAtMs` created:
 * the same effective window and power control, received no earlier than `sentAtMs` less
 * {@link CLOCK_ALLOWANCE_MS}, not in `taken` (other entries' commands); of several, the one
 * received closest to `sentAtMs`. Undefined when none is.
 */
export function matchSubmittedCommand(
  records: readonly StatusRecord[],
  submission: Pick<UnsettledSubmission, 'startTime' | 'endTime' | 'powerControl'>,
  sentAtMs: number,
  taken: ReadonlySet<string>,
): StatusRecord | undefined {
  return records
    .filter(
      (record) =>
        !taken.has(record.id) &&
        sameInstant(record.startTime, submission.startTime) &&
        sameInstant(record.endTime, submission.endTime) &&
        samePowerControl(record.powerControl, submission.powerControl) &&
        Date.parse(record.receivedAt) >= sentAtMs - CLOCK_ALLOWANCE_MS,
    )
    .sort(
      (a, b) =>
        Math.abs(Date.parse(a.receivedAt) - sentAtMs) -
        Math.abs(Date.parse(b.receivedAt) - sentAtMs),
    )[0];
}

/**
 * The history range to read: the 30-day slot (domain `historyRangeSlots`, a valid range) that
 * holds the submission's start. A matching command starts there, so its window meets it.
 */
function historyRange(submission: UnsettledSubmission): TimeWindow {
  const startMs = Date.parse(submission.startTime);
  const [slot = { startMs, endMs: startMs + 1 }] = historyRangeSlots(startMs, startMs + 1);
  return {
    startTime: new Date(slot.startMs).toISOString(),
    endTime: new Date(slot.endMs).toISOString(),
  };
}

function sameInstant(a: string, b: string): boolean {
  return Date.parse(a) === Date.parse(b);
}

function samePowerControl(a: PowerControl, b: PowerControl): boolean {
  return POWER_CONTROL_PROPERTIES.every((p) => a[p] === b[p]);
}
