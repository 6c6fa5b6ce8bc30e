import { TZDate } from '@date-fns/tz';
import { addDays } from 'date-fns';
import type { DeviceCommand, StatusRecord } from '#domain/command.ts';
import type { PowerControl } from '#domain/power-control.ts';
import { windowsOverlap } from '#domain/time-window.ts';
import { deviceCapabilityCheck } from '#client/commands/lib/capability-checks.ts';
import { toUtcTimestamp } from '#client/lib/time.ts';
import { dragRefusal } from './drag-refusal.ts';
import type { DeviceOverlapIndex } from './overlap-index.ts';
import { refusalWords } from './refusal-words.ts';
import type { RowTarget } from './timeline-types.ts';

/** A window copied with Ctrl+C (or the bar menu): what a paste sends again elsewhere. */
export interface CopiedWindow {
  commandId: string;
  deviceName: string;
  powerControl: PowerControl;
  durationMs: number;
}

/** The copy of `record` a paste or a duplicate sends. */
export function copyOf(record: StatusRecord, deviceName: string): CopiedWindow {
  return {
    commandId: record.id,
    deviceName,
    powerControl: record.powerControl,
    durationMs: Date.parse(record.endTime) - Date.parse(record.startTime),
  };
}

/** One copy to send: a device and a window, named for the operator (`Battery B, +1 day`). */
export interface WindowCopy {
  target: RowTarget;
  startMs: number;
  endMs: number;
  label: string;
}

/** A copy with the verdict of the checks: `refusal` says why it may not be sent. */
export interface CheckedCopy extends WindowCopy {
  refusal: string | undefined;
}

/** A device's overlap index, or `undefined` while its commands are unread (a copy is then refused). */
export type OverlapIndexOf = (deviceId: string) => DeviceOverlapIndex | undefined;

/**
 * Checks every copy before anything is sent: capability ranges (docs/upstream.md, Commands), the
 * drag rule (`dragRefusal`), and no overlap with an earlier passed copy for the same device.
 */
export function checkCopies(
  copies: readonly WindowCopy[],
  powerControl: PowerControl,
  nowMs: number,
  indexOf: OverlapIndexOf,
  timeZoneOf: (target: RowTarget) => string,
): CheckedCopy[] {
  const accepted: CheckedCopy[] = [];
  return copies.map((copy) => {
    const { device } = copy.target;
    const capability = deviceCapabilityCheck(device.capabilities).refusals(powerControl)[0];
    const index = indexOf(device.deviceId);
    const refusal = dragRefusal(copy, nowMs, index);
    const twin = accepted.find(
      (other) => other.target.device.deviceId === device.deviceId && windowsOverlap(other, copy),
    );
    const reason = capability
      ? `${capability.message}.`
      : refusal
        ? refusalWords(refusal, timeZoneOf(copy.target))
        : !index
          ? `The commands of ${device.name} are not read yet, so the overlap rule cannot be checked; try again in a moment.`
          : twin
            ? `Refused: overlaps the copy for ${twin.label}.`
            : undefined;
    const checked = { ...copy, refusal: reason };
    if (!reason) accepted.push(checked);
    return checked;
  });
}

/** `days` days after `ms` on `timeZone`'s wall clock: same time of day across a DST change. */
export function shiftDays(ms: number, days: number, timeZone: string): number {
  return days === 0 ? ms : addDays(new TZDate(ms, timeZone), days).getTime();
}

/** `same day`, `+1 day`, `+3 days`, `-1 day`: a day offset in words. */
export function dayOffsetWords(days: number): string {
  if (days === 0) return 'same day';
  const sign = days > 0 ? '+' : '−';
  const count = Math.abs(days);
  return `${sign}${count} ${count === 1 ? 'day' : 'days'}`;
}

/**
 * The copies of `record` a duplicate makes: one per target device and day offset (whole days on
 * the source site's clock), leaving out the record itself.
 */
export function duplicateCopies(
  record: StatusRecord,
  source: RowTarget,
  targets: readonly RowTarget[],
  dayOffsets: readonly number[],
): WindowCopy[] {
  const startMs = Date.parse(record.startTime);
  const endMs = Date.parse(record.endTime);
  const zone = source.site.timeZone;
  const offsets = [...new Set(dayOffsets)].sort((a, b) => a - b);
  return targets.flatMap((target) =>
    offsets
      .filter((days) => days !== 0 || target.device.deviceId !== source.device.deviceId)
      .map((days) => ({
        target,
        startMs: shiftDays(startMs, days, zone),
        endMs: shiftDays(endMs, days, zone),
        label: `${target.device.name}, ${dayOffsetWords(days)}`,
      })),
  );
}

/** The copies a paste makes: `copied`'s control and length from `atMs` on each target. */
export function pasteCopies(
  copied: CopiedWindow,
  targets: readonly RowTarget[],
  atMs: number,
): WindowCopy[] {
  return targets.map((target) => ({
    target,
    startMs: atMs,
    endMs: atMs + copied.durationMs,
    label: target.device.name,
  }));
}

/** The command a checked copy sends: the power control over its window, whole seconds in UTC. */
export function copyCommand(copy: WindowCopy, powerControl: PowerControl): DeviceCommand {
  return {
    powerControl,
    startTime: toUtcTimestamp(copy.startMs),
    endTime: toUtcTimestamp(copy.endMs),
  };
}
