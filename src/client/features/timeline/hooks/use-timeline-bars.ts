import { useCallback, useMemo } from 'react';
import type { StatusRecord } from '#domain/command.ts';
import { useDeviceHistories } from '#client/commands/api/get-command-history.ts';
import { toBar, type Bar } from '../lib/bars.ts';
import { liveSlotPollMs } from '../lib/live-poll.ts';
import { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import type { TimelineViewport } from '../lib/timeline-types.ts';

// Keyed by history array (structural sharing): an unchanged device rebuilds no bars or index.
const barsCache = new WeakMap<readonly StatusRecord[], Bar[]>();
const indexCache = new WeakMap<readonly Bar[], DeviceOverlapIndex>();

/**
 * Bars of the devices in view over the history slots the viewport meets, polled while a slot is
 * live, with a per-device overlap index built lazily once per data version.
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
