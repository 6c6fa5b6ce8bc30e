import { isActiveStatus, type CancellationReason, type StatusRecord } from '#domain/command.ts';
import { COMMAND_STATUS_WORDS } from '#domain/words.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { siteClockWords } from '#domain/time.ts';
import type { QueuedMark } from './ghosts.ts';
import { windowInZone } from './window-words.ts';

/** A command window as the canvas draws it; `label` e.g. `3 kW charge, stop charging at 90% · Received`. */
export interface Bar {
  id: string;
  startMs: number;
  endMs: number;
  status: StatusRecord['status'];
  label: string;
  record: StatusRecord;
  /** Set while a queued change waits to cancel this command (lib/queued-windows.ts). */
  queuedCancel?: QueuedMark;
}

const REASON_SHORT: Record<CancellationReason, string> = {
  manuallyCancel: 'by operator',
  timeWindowOverlap: 'overlap',
  startTimeExpire: 'start expired',
  deviceFault: 'device fault',
  notSupported: 'not supported',
};

/** A bar's status in short words; a cancelled one with its reason, e.g. `Cancelled (overlap)`. */
export function barStatusWords(record: StatusRecord): string {
  if (record.status === 'cancelled')
    return `Cancelled${record.cancelReason ? ` (${REASON_SHORT[record.cancelReason]})` : ''}`;
  return STATUS_SHORT[record.status];
}

const STATUS_SHORT: Record<StatusRecord['status'], string> = {
  received: 'Received',
  executing: 'Executing',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** A bar of a status record, labelled with its short control and its status (and reason). */
export function toBar(record: StatusRecord): Bar {
  return {
    id: record.id,
    startMs: Date.parse(record.startTime),
    endMs: Date.parse(record.endTime),
    status: record.status,
    label: `${describePowerControl(record.powerControl)} · ${barStatusWords(record)}`,
    record,
  };
}

/** Labels made for bars drawn so far; bars are rebuilt per data version, so none goes stale. */
const labelChoices = new WeakMap<Bar, readonly string[]>();

/** The texts a bar may show, longest first, so a narrow bar shows the longest that fits, never a cut one. */
export function barLabels(bar: Bar): readonly string[] {
  let labels = labelChoices.get(bar);
  if (!labels) {
    const control = describePowerControl(bar.record.powerControl);
    const first = control.split(', ')[0] ?? control;
    labels = [bar.label, control, first].filter((text, i, all) => text && all.indexOf(text) === i);
    labelChoices.set(bar, labels);
  }
  return labels;
}

/** The last accessible name made for a bar; bars are rebuilt per data version, so none goes stale. */
const accessibleNames = new WeakMap<Bar, { deviceName: string; timeZone: string; name: string }>();

/**
 * Accessible name of a bar: device, control, window in the site's zone, status (with a cancel's
 * reason, the text of the canvas's hatching). Memoized per bar and zone: formatting in a zone was
 * most of a pan frame's time.
 */
export function barAccessibleName(deviceName: string, bar: Bar, timeZone: string): string {
  const known = accessibleNames.get(bar);
  if (known && known.deviceName === deviceName && known.timeZone === timeZone) return known.name;
  const status =
    bar.status === 'cancelled' ? barStatusWords(bar.record) : COMMAND_STATUS_WORDS[bar.status];
  const name = `${deviceName}: ${describePowerControl(bar.record.powerControl)}, ${windowInZone(
    bar.startMs,
    bar.endMs,
    timeZone,
  )}, ${status}${
    bar.queuedCancel
      ? `, cancel queued, goes at ${siteClockWords(bar.queuedCancel.goesAtMs, timeZone)}`
      : ''
  }`;
  accessibleNames.set(bar, { deviceName, timeZone, name });
  return name;
}

/** The bar under `ms` in a row's bars (sorted by start), preferring active ones, or undefined. */
export function barAt(bars: readonly Bar[], ms: number, toleranceMs = 0): Bar | undefined {
  let hit: Bar | undefined;
  for (const bar of bars) {
    if (bar.startMs - toleranceMs > ms) break;
    if (ms < bar.endMs + toleranceMs) {
      if (isActiveStatus(bar.status)) return bar;
      hit ??= bar;
    }
  }
  return hit;
}
