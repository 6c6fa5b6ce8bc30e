import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import { pendingDeviceChanges } from '#domain/queued-change.ts';
import { siteClockWords } from '#domain/time.ts';
import type { Bar } from './bars.ts';
import { ghostId, type GhostWindow, type QueuedMark } from './ghosts.ts';
import { DeviceOverlapIndex, type IndexedWindow } from './overlap-index.ts';
import { queuedCancelWords } from '#client/commands/lib/queued.ts';
import { clockTimeWithSeconds } from '#client/lib/time.ts';

/**
 * The changes waiting for their devices' budget (docs/decisions/007-device-call-budget.md):
 * their windows as queued ghosts by device ID, and the commands they will cancel.
 */
export interface QueuedWindows {
  ghostsByDevice: Map<string, GhostWindow[]>;
  cancelsByCommand: Map<string, QueuedMark>;
}

/** `Queued, goes at 14:05:20`: a queued window's name, on the clock of `timeZone`. */
export function queuedWindowName(goesAtMs: number, timeZone: string): string {
  return `Queued, goes at ${clockTimeWithSeconds(goesAtMs, timeZone)}`;
}

/** The queued windows and cancels of `changes`; a batch's window is one ghost per device. */
export function queuedWindowsOf(
  changes: readonly QueuedChangeStatus[],
  timeZoneOf: (deviceId: string) => string,
): QueuedWindows {
  const ghostsByDevice = new Map<string, GhostWindow[]>();
  const cancelsByCommand = new Map<string, QueuedMark>();
  for (const pending of pendingDeviceChanges(changes)) {
    const mark: QueuedMark = {
      changeId: pending.changeId,
      goesAtMs: Date.parse(pending.goesAt),
      withdrawable: pending.withdrawable,
    };
    if (pending.call === 'cancel') {
      cancelsByCommand.set(pending.commandId, mark);
      continue;
    }
    const list = ghostsByDevice.get(pending.deviceId) ?? [];
    list.push({
      id: ghostId(`queued-${pending.changeId}-${pending.deviceId}`),
      startMs: Date.parse(pending.command.startTime),
      endMs: Date.parse(pending.command.endTime),
      name: queuedWindowName(mark.goesAtMs, timeZoneOf(pending.deviceId)),
      powerControl: pending.command.powerControl,
      queued: mark,
    });
    ghostsByDevice.set(pending.deviceId, list);
  }
  for (const list of ghostsByDevice.values()) list.sort((a, b) => a.startMs - b.startMs);
  return { ghostsByDevice, cancelsByCommand };
}

/** Bars with a queued cancel marked; an unconcerned device keeps its array (no rebuild). */
export function withQueuedCancels(
  barsByDevice: ReadonlyMap<string, readonly Bar[]>,
  cancelsByCommand: ReadonlyMap<string, QueuedMark>,
  timeZoneOf: (deviceId: string) => string,
): Map<string, readonly Bar[]> {
  const shown = new Map<string, readonly Bar[]>(barsByDevice);
  if (cancelsByCommand.size === 0) return shown;
  for (const [deviceId, bars] of barsByDevice) {
    if (!bars.some((bar) => cancelsByCommand.has(bar.id))) continue;
    shown.set(
      deviceId,
      bars.map((bar) => {
        const mark = cancelsByCommand.get(bar.id);
        return mark
          ? {
              ...bar,
              label: `${bar.label} · ${queuedCancelWords(mark.goesAtMs, timeZoneOf(deviceId))}`,
              queuedCancel: mark,
            }
          : bar;
      }),
    );
  }
  return shown;
}

/** A device's queued windows for the overlap index: they block like an active command's. */
export function queuedIndexedWindows(ghosts: readonly GhostWindow[]): IndexedWindow[] {
  return ghosts.flatMap((ghost) =>
    ghost.queued
      ? [
          {
            id: ghost.id,
            startMs: ghost.startMs,
            endMs: ghost.endMs,
            status: 'received' as const,
            queued: ghost.queued,
          },
        ]
      : [],
  );
}

/** Indexes built per device's queued windows (one data version), with the bars they were built with. */
const indexes = new WeakMap<
  readonly GhostWindow[],
  { bars: readonly Bar[] | undefined; index: DeviceOverlapIndex }
>();

/** The overlap index of a device's bars and queued windows, built once per data version. */
export function overlapIndexWithQueued(
  bars: readonly Bar[] | undefined,
  ghosts: readonly GhostWindow[],
): DeviceOverlapIndex {
  const known = indexes.get(ghosts);
  if (known?.bars === bars && known) return known.index;
  const index = new DeviceOverlapIndex([...(bars ?? []), ...queuedIndexedWindows(ghosts)]);
  indexes.set(ghosts, { bars, index });
  return index;
}

/** The words of a refusal on a queued window: when its change goes, on `timeZone`'s clock. */
export function queuedConflictWords(mark: QueuedMark, timeZone: string): string {
  return `a queued change that goes at ${siteClockWords(mark.goesAtMs, timeZone)}`;
}
