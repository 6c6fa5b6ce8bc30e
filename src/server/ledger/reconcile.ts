import type { StatusRecord } from '#domain/command.ts';
import { historyRangeSlots } from '#domain/history.ts';
import type { PowerControl } from '#domain/power-control.ts';
import { POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import type { TimeWindow } from '#domain/time-window.ts';

export interface UnsettledSubmission {
  deviceIds: string[];
  startTime: string;
  endTime: string;
  powerControl: PowerControl;
  batch: boolean;
}

export type ReadHistory = (deviceId: string, range: TimeWindow) => Promise<StatusRecord[]>;

/** How far the vendor's clock may run behind the BFF's. */
export const CLOCK_ALLOWANCE_MS = 2 * 60_000;

export interface SubmittedCommands {
  found: Map<string, StatusRecord>;
  /** Whether they hold one is not known. */
  unread: string[];
}

/**
 * The commands of a submission or batch found in the devices' histories (decision 006, section 5;
 * docs/architecture.md, Ledger). Never sends anything. One command found settles a batch, so an
 * unread history matters only when nothing was found.
 *
 * @param sentAtMs the vendor's time of its answer when there was one, else when the entry was
 *   written.
 * @param known command IDs per device that other ledger entries hold.
 * @throws the first failure to read a history when no command was found.
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
 * The command of each of several submissions to one device among `records`, none taken twice.
 * Two submissions with the same window and power control may both still wait for theirs (the
 * first's command cancelled or gone before a read found it): pairs are taken closest first, by
 * how far the command's receipt is from the submission's send, so a command goes to the
 * submission that sent it rather than to the oldest one it could match (decision 006, section 5).
 *
 * @returns the matched record by the submission's index in `submissions`.
 */
export function matchSubmittedCommands(
  records: readonly StatusRecord[],
  submissions: readonly {
    submission: Pick<UnsettledSubmission, 'startTime' | 'endTime' | 'powerControl'>;
    sentAtMs: number;
    taken: ReadonlySet<string>;
  }[],
): Map<number, StatusRecord> {
  const pairs = submissions.flatMap(({ submission, sentAtMs, taken }, index) =>
    records
      .filter((record) => matchesSubmission(record, submission, sentAtMs, taken))
      .map((record) => ({
        index,
        record,
        distanceMs: Math.abs(Date.parse(record.receivedAt) - sentAtMs),
      })),
  );
  pairs.sort((a, b) => a.distanceMs - b.distanceMs);
  const matched = new Map<number, StatusRecord>();
  const used = new Set<string>();
  for (const { index, record } of pairs) {
    if (matched.has(index) || used.has(record.id)) continue;
    matched.set(index, record);
    used.add(record.id);
  }
  return matched;
}

/** Of several, the one received closest to `sentAtMs`. */
export function matchSubmittedCommand(
  records: readonly StatusRecord[],
  submission: Pick<UnsettledSubmission, 'startTime' | 'endTime' | 'powerControl'>,
  sentAtMs: number,
  taken: ReadonlySet<string>,
): StatusRecord | undefined {
  return records
    .filter((record) => matchesSubmission(record, submission, sentAtMs, taken))
    .sort(
      (a, b) =>
        Math.abs(Date.parse(a.receivedAt) - sentAtMs) -
        Math.abs(Date.parse(b.receivedAt) - sentAtMs),
    )[0];
}

/** The 30-day slot holding the submission's start: a matching command's window meets it. */
function historyRange(submission: UnsettledSubmission): TimeWindow {
  const startMs = Date.parse(submission.startTime);
  const [slot = { startMs, endMs: startMs + 1 }] = historyRangeSlots(startMs, startMs + 1);
  return {
    startTime: new Date(slot.startMs).toISOString(),
    endTime: new Date(slot.endMs).toISOString(),
  };
}

function matchesSubmission(
  record: StatusRecord,
  submission: Pick<UnsettledSubmission, 'startTime' | 'endTime' | 'powerControl'>,
  sentAtMs: number,
  taken: ReadonlySet<string>,
): boolean {
  return (
    !taken.has(record.id) &&
    sameInstant(record.startTime, submission.startTime) &&
    sameInstant(record.endTime, submission.endTime) &&
    samePowerControl(record.powerControl, submission.powerControl) &&
    Date.parse(record.receivedAt) >= sentAtMs - CLOCK_ALLOWANCE_MS
  );
}

function sameInstant(a: string, b: string): boolean {
  return Date.parse(a) === Date.parse(b);
}

function samePowerControl(a: PowerControl, b: PowerControl): boolean {
  return POWER_CONTROL_PROPERTIES.every((p) => a[p] === b[p]);
}
