import { isActiveStatus, type CommandStatus } from '#domain/command.ts';
import { windowsOverlap, type WindowMs } from '#domain/time-window.ts';
import type { QueuedMark } from './ghosts.ts';

/** An active window as the index keeps it. */
export interface IndexedWindow extends WindowMs {
  id: string;
  status: CommandStatus;
  /** Set for the window of a queued change (lib/queued-windows.ts): taken whatever its status. */
  queued?: QueuedMark;
}

/**
 * Active windows of one device sorted by start with the running maximum of their ends: "overlaps
 * an active command?" in O(log n). Same rule as the domain's `findActiveOverlap`; a queued
 * change's window blocks too (docs/decisions/007-device-call-budget.md).
 */
export class DeviceOverlapIndex {
  private readonly windows: IndexedWindow[];
  private readonly maxEndMs: Float64Array;

  constructor(commands: Iterable<IndexedWindow>) {
    this.windows = [...commands]
      .filter((command) => command.queued !== undefined || isActiveStatus(command.status))
      .sort((a, b) => a.startMs - b.startMs);
    this.maxEndMs = new Float64Array(this.windows.length);
    let max = -Infinity;
    this.windows.forEach((window, i) => {
      max = Math.max(max, window.endMs);
      this.maxEndMs[i] = max;
    });
  }

  get size(): number {
    return this.windows.length;
  }

  /** The latest-starting active window overlapping `window`; `ignoreId` leaves out the one being replaced. */
  findOverlap(window: WindowMs, ignoreId?: string): IndexedWindow | undefined {
    // Candidates start before the window ends: indices [0, hi).
    let lo = 0;
    let hi = this.windows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.windows[mid]?.startMs ?? Infinity) < window.endMs) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo - 1; i >= 0 && (this.maxEndMs[i] ?? -Infinity) > window.startMs; i--) {
      const candidate = this.windows[i];
      if (candidate && candidate.id !== ignoreId && windowsOverlap(candidate, window))
        return candidate;
    }
    return undefined;
  }
}
