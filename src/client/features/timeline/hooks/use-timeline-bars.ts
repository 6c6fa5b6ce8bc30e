import { useCallback, useMemo } from 'react';
import type { StatusRecord } from '../../../../domain/command.ts';
import { useDeviceHistories } from '../../../commands/api/get-command-history.ts';
import { toBar, type Bar } from '../lib/bars.ts';
import { liveSlotPollMs } from '../lib/live-poll.ts';
import { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import type { TimelineViewport } from '../lib/timeline-types.ts';

// A device whose history did not change keeps its records' array (structural sharing), hence its
// bars and its overlap index: nothing is rebuilt, and no status change is looked for there.
const barsCache = new WeakMap<readonly StatusRecord[], Bar[]>();
const indexCache = new WeakMap<readonly Bar[], DeviceOverlapIndex>();

/**
 * Bars of the devices in view over the history slots the viewport meets (the device commands
 * entity's 30-day slots, shared with every other screen), polled while a slot holds a live
 * command, and a per-device overlap index built lazily, once per data version, for the drag
 * feedback.
 */
export function useTimelineBars(viewport: TimelineViewport | undefined) {
  const range = useMemo(
    () => (viewport ? { startMs: viewport.startMs, endMs: viewport.endMs } : null),
    [viewport],
  );
  const deviceIds = useMemo(() => viewport?.deviceIds ?? [], [viewport]);
  const { devices, failedSlots } = useDeviceHistories(deviceIds, range, {
    pollMs: liveSlotPollMs,
  });
  const barsByDevice = useMemo(() => {
    const byDevice = new Map<string, Bar[]>();
    for (const { deviceId, commands } of devices) {
      let bars = barsCache.get(commands);
      if (!bars) {
        bars = commands.map(toBar);
        barsCache.set(commands, bars);
      }
      byDevice.set(deviceId, bars);
    }
    return byDevice;
  }, [devices]);
  const overlapIndex = useCallback(
    (deviceId: string) => {
      const bars = barsByDevice.get(deviceId);
      if (!bars) return undefined;
      let index = indexCache.get(bars);
      if (!index) {
        index = new DeviceOverlapIndex(bars);
        indexCache.set(bars, index);
      }
      return index;
    },
    [barsByDevice],
  );
  return { barsByDevice, overlapIndex, failedSlots };
}
