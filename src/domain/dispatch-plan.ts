import { MAX_BATCH_DEVICES } from './batch.ts';
import type { DeviceCommand } from './command.ts';
import { checkCapabilities, describeViolation, type Capabilities } from './device.ts';
import { DeviceIdSchema } from './ids.ts';
import { findActiveOverlap, type WindowedCommand } from './overlap.ts';
import {
  parsePowerControlValue,
  POWER_CONTROL_PROPERTIES,
  POWER_CONTROL_WORDS,
  PowerControlSchema,
  type PowerControl,
} from './power-control.ts';
import { windowsOverlap, type WindowMs } from './time-window.ts';

/** Cells as written (empty or absent: not set); `line` for the operator. */
export interface PlanRowInput {
  line: number;
  deviceId: string;
  start: string;
  end: string;
  controls: Partial<Record<(typeof POWER_CONTROL_PROPERTIES)[number], string>>;
}

export interface PlanDevice {
  capabilities: Capabilities;
  /** IANA zone, for times written on the site's clock. */
  timeZone: string;
}

export interface PlanContext {
  devices: ReadonlyMap<string, PlanDevice>;
  /** With their power control, so a row the device already holds counts as sent, not an overlap. */
  commands: ReadonlyMap<string, readonly (WindowedCommand & { powerControl?: PowerControl })[]>;
  nowMs: number;
  /** Epoch ms; NaN when the cell is not a time. */
  parseTime: (cell: string, column: 'start' | 'end', timeZone: string) => number;
}

export interface PlanRow {
  line: number;
  deviceId: string;
  command: DeviceCommand;
}

export interface RefusedPlanRow {
  line: number;
  deviceId: string;
  reasons: string[];
}

/** Each in file order. */
export interface PlanCheck {
  accepted: PlanRow[];
  refused: RefusedPlanRow[];
}

/**
 * Checks every row before anything is sent (docs/fleet-dispatch.md, Dispatch plans) with the
 * project's one rule of each kind: device bound and ID valid (ids.ts), cells read as the forms
 * read them, schema and capability ranges (power-control.ts, device.ts; docs/upstream.md,
 * Commands), end after start, start not past, no overlap with an active command (overlap.ts) or
 * an earlier row of the device (the later is refused). Linear in the rows plus a sort per device.
 */
export function checkPlan(rows: readonly PlanRowInput[], context: PlanContext): PlanCheck {
  const refused = new Map<number, RefusedPlanRow>();
  const refuse = (row: PlanRowInput, reason: string) => {
    const entry = refused.get(row.line) ?? { line: row.line, deviceId: row.deviceId, reasons: [] };
    entry.reasons.push(reason);
    refused.set(row.line, entry);
  };
  const candidates: { row: PlanRowInput; window: WindowMs; powerControl: PowerControl }[] = [];
  for (const row of rows) {
    const device = context.devices.get(row.deviceId);
    if (!DeviceIdSchema.safeParse(row.deviceId).success) {
      refuse(row, `"${row.deviceId}" is not a device ID`);
      continue;
    }
    if (!device) {
      refuse(row, `${row.deviceId} is not in a bound site`);
      continue;
    }
    const startMs = context.parseTime(row.start, 'start', device.timeZone);
    const endMs = context.parseTime(row.end, 'end', device.timeZone);
    if (Number.isNaN(startMs)) refuse(row, `start "${row.start}" is not a date and time`);
    if (Number.isNaN(endMs)) refuse(row, `end "${row.end}" is not a date and time`);
    const values: Record<string, number> = {};
    let cellsUnread = 0;
    for (const property of POWER_CONTROL_PROPERTIES) {
      const cell = row.controls[property]?.trim();
      if (!cell) continue;
      const read = parsePowerControlValue(property, cell);
      if ('value' in read) values[property] = read.value;
      else {
        cellsUnread += 1;
        refuse(row, `${POWER_CONTROL_WORDS[property].name} "${cell}": ${lowerFirst(read.problem)}`);
      }
    }
    const control = PowerControlSchema.safeParse(values);
    if (!control.success)
      for (const issue of control.error.issues.slice(0, 3))
        // A cell that could not be read already says so; "no control set" would only repeat it.
        if (issue.path.length > 0 || cellsUnread === 0) refuse(row, issue.message);
    if (refused.has(row.line) || !control.success) continue;
    if (endMs <= startMs) refuse(row, 'end must be after start');
    else if (startMs < context.nowMs) refuse(row, 'its window starts in the past');
    for (const violation of checkCapabilities(control.data, device.capabilities))
      refuse(row, describeViolation(violation));
    const window = { startMs, endMs };
    const known = context.commands.get(row.deviceId) ?? [];
    if (known.some((command) => isSameCommand(command, window, control.data))) {
      refuse(row, 'already sent: the device holds this command');
      continue;
    }
    const active = findActiveOverlap(window, known);
    if (active)
      refuse(
        row,
        `its window overlaps a command of this device that is ${active.status === 'received' ? 'waiting to start' : 'executing'}`,
      );
    if (!refused.has(row.line)) candidates.push({ row, window, powerControl: control.data });
  }

  // In time order: the first of two overlapping is kept.
  const byDevice = new Map<string, typeof candidates>();
  for (const candidate of candidates) {
    const list = byDevice.get(candidate.row.deviceId) ?? [];
    list.push(candidate);
    byDevice.set(candidate.row.deviceId, list);
  }
  const accepted: PlanRow[] = [];
  for (const list of byDevice.values()) {
    list.sort((a, b) => a.window.startMs - b.window.startMs || a.row.line - b.row.line);
    let kept: (typeof candidates)[number] | undefined;
    for (const candidate of list) {
      if (kept && windowsOverlap(kept.window, candidate.window)) {
        refuse(candidate.row, `its window overlaps line ${kept.row.line} for the same device`);
        continue;
      }
      if (!kept || candidate.window.endMs > kept.window.endMs) kept = candidate;
      accepted.push({
        line: candidate.row.line,
        deviceId: candidate.row.deviceId,
        command: {
          powerControl: candidate.powerControl,
          startTime: new Date(candidate.window.startMs).toISOString(),
          endTime: new Date(candidate.window.endMs).toISOString(),
        },
      });
    }
  }
  accepted.sort((a, b) => a.line - b.line);
  return { accepted, refused: [...refused.values()].sort((a, b) => a.line - b.line) };
}

function lowerFirst(words: string): string {
  return words.charAt(0).toLowerCase() + words.slice(1);
}

function isSameCommand(
  command: WindowedCommand & { powerControl?: PowerControl },
  window: WindowMs,
  powerControl: PowerControl,
): boolean {
  if (command.status !== 'received' && command.status !== 'executing') return false;
  if (Date.parse(command.startTime) !== window.startMs) return false;
  if (Date.parse(command.endTime) !== window.endMs) return false;
  if (!command.powerControl) return false;
  return POWER_CONTROL_PROPERTIES.every((p) => command.powerControl?.[p] === powerControl[p]);
}

/** At most 50 devices (docs/upstream.md, Batches). */
export interface PlanBatch {
  command: DeviceCommand;
  deviceIds: string[];
}

/** In the order each command first appears in the plan (docs/upstream.md, Batches). */
export function groupPlanIntoBatches(rows: readonly PlanRow[]): PlanBatch[] {
  const groups = new Map<string, PlanBatch>();
  for (const row of rows) {
    const { powerControl, startTime, endTime } = row.command;
    const key = JSON.stringify([
      POWER_CONTROL_PROPERTIES.map((p) => powerControl[p] ?? null),
      startTime,
      endTime,
    ]);
    const group = groups.get(key) ?? { command: row.command, deviceIds: [] };
    group.deviceIds.push(row.deviceId);
    groups.set(key, group);
  }
  const batches: PlanBatch[] = [];
  for (const group of groups.values())
    for (let i = 0; i < group.deviceIds.length; i += MAX_BATCH_DEVICES)
      batches.push({
        command: group.command,
        deviceIds: group.deviceIds.slice(i, i + MAX_BATCH_DEVICES),
      });
  return batches;
}
