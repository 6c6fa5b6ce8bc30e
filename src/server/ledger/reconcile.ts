import type { StatusRecord } from '../../domain/command.ts';
import { historyRangeSlots } from '../../domain/history.ts';
import type { PowerControl } from '../../domain/power-control.ts';
import { POWER_CONTROL_PROPERTIES } from '../../domain/power-control.ts';
import type { TimeWindow } from '../../domain/time-window.ts';

/** What an unsettled submission asked for: the devices, the window and the power control. */
export interface UnsettledSubmission {
  deviceIds: string[];
  startTime: string;
  endTime: string;
  powerControl: PowerControl;
  /** True for a batch: the matching records must carry one shared `batchCommandId`. */
  batch: boolean;
}

/** Reads one device's command history over a range (the upstream's history query, validated). */
export type ReadHistory = (deviceId: string, range: TimeWindow) => Promise<StatusRecord[]>;

/**
 * What the history query says about an unsettled submission. `ambiguous`: more than one batch of
 * the history fits a batch intent equally, so the BFF cannot tell which one is this submission's.
 */
export type Reconciliation =
  | { found: true; commands: { deviceId: string; id: string }[]; batchCommandId?: string }
  | { found: false }
  | { found: 'ambiguous'; batchCommandIds: string[] };

/**
 * Settles a submission whose outcome is unknown through the history query (docs/architecture.md,
 * Ledger): a command of the same device, same window and same power control that the ledger does
 * not already attribute to another entry. Never re-sends anything.
 *
 * A batch is settled only by one whole batch of the history: one `batchCommandId` with exactly one
 * matching command on every device of the intent (the upstream answers a batch with one command per
 * device; docs/architecture.md, Upstream contract: Batch). Commands of a batch that covers only
 * some of the devices belong to another batch and never settle this one; two or more whole batches
 * are `ambiguous` (two unknown batches of the same window and power control on the same devices).
 *
 * @param readHistory the caller's history query.
 * @param known command IDs per device already attributed to other ledger entries.
 * @throws ProblemError when the history cannot be read (the entry then stays unknown).
 */
export async function reconcileSubmission(
  readHistory: ReadHistory,
  intent: UnsettledSubmission,
  known: (deviceId: string) => Promise<Set<string>>,
): Promise<Reconciliation> {
  const matchesByDevice = new Map<string, StatusRecord[]>();
  const range = historyRange(intent);
  for (const deviceId of intent.deviceIds) {
    const records = await readHistory(deviceId, range);
    const taken = await known(deviceId);
    matchesByDevice.set(
      deviceId,
      records.filter(
        (record) =>
          !taken.has(record.id) &&
          sameInstant(record.startTime, intent.startTime) &&
          sameInstant(record.endTime, intent.endTime) &&
          samePowerControl(record.powerControl, intent.powerControl) &&
          (intent.batch
            ? record.batchCommandId !== undefined
            : record.batchCommandId === undefined),
      ),
    );
  }
  return intent.batch
    ? settleBatch(intent.deviceIds, matchesByDevice)
    : settleSingle(matchesByDevice);
}

function settleSingle(matchesByDevice: Map<string, StatusRecord[]>): Reconciliation {
  const commands: { deviceId: string; id: string }[] = [];
  for (const [deviceId, matches] of matchesByDevice) {
    const match = matches[0];
    if (match) commands.push({ deviceId, id: match.id });
  }
  return commands.length === 0 ? { found: false } : { found: true, commands };
}

/** The one batch of the history with exactly one matching command on every intent device. */
function settleBatch(
  deviceIds: string[],
  matchesByDevice: Map<string, StatusRecord[]>,
): Reconciliation {
  const commandIdsByBatch = new Map<string, Map<string, string[]>>();
  for (const [deviceId, matches] of matchesByDevice)
    for (const record of matches) {
      if (record.batchCommandId === undefined) continue;
      const byDevice = commandIdsByBatch.get(record.batchCommandId) ?? new Map<string, string[]>();
      commandIdsByBatch.set(record.batchCommandId, byDevice);
      byDevice.set(deviceId, [...(byDevice.get(deviceId) ?? []), record.id]);
    }
  const whole = [...commandIdsByBatch].filter(([, byDevice]) =>
    deviceIds.every((deviceId) => byDevice.get(deviceId)?.length === 1),
  );
  const [only, ...others] = whole;
  if (!only) return { found: false };
  if (others.length > 0) return { found: 'ambiguous', batchCommandIds: whole.map(([id]) => id) };
  const [batchCommandId, byDevice] = only;
  return {
    found: true,
    batchCommandId,
    commands: deviceIds.map((deviceId) => ({ deviceId, id: byDevice.get(deviceId)?.[0] ?? '' })),
  };
}

/**
 * The history range to read: the 30-day slot (domain `historyRangeSlots`, a valid range, spec 8)
 * that holds the submission's start. A matching command starts there, so its window meets it.
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
