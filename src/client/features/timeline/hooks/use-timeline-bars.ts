import { useCallback, useMemo } from 'react';
import { useQueries } from '@tanstack/react-query';
import type { StatusRecord } from '../../../../domain/command.ts';
import { historyChunkQuery } from '../api/history-chunk.ts';
import { toBar, type Bar } from '../lib/bars.ts';
import { historyChunks } from '../lib/history-chunks.ts';
import { mergeRecords } from '../lib/history-chunks.ts';
import { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import type { TimelineViewport } from '../lib/timeline-types.ts';

const indexCache = new WeakMap<readonly Bar[], DeviceOverlapIndex>();

/**
 * Bars of the devices in view over the chunks the viewport touches (30-day history chunks,
 * cached per device and chunk), and a per-device overlap index built lazily, once per data
 * version, for the drag feedback.
 */
export function useTimelineBars(viewport: TimelineViewport | undefined) {
  const chunks = useMemo(
    () => (viewport ? historyChunks(viewport.startMs, viewport.endMs) : []),
    [viewport],
  );
  const deviceIds = useMemo(() => viewport?.deviceIds ?? [], [viewport]);
  const combine = useCallback(
    (results: { data?: { commands: StatusRecord[] } | undefined; error: unknown }[]) => {
      const barsByDevice = new Map<string, Bar[]>();
      let failed = 0;
      deviceIds.forEach((deviceId, d) => {
        const lists: StatusRecord[][] = [];
        chunks.forEach((_, c) => {
          const result = results[d * chunks.length + c];
          if (result?.data) lists.push(result.data.commands);
          if (result?.error) failed++;
        });
        barsByDevice.set(deviceId, mergeRecords(lists).map(toBar));
      });
      return { barsByDevice, failed };
    },
    [deviceIds, chunks],
  );
  const { barsByDevice, failed } = useQueries({
    queries: deviceIds.flatMap((deviceId) =>
      chunks.map((chunk) => historyChunkQuery(deviceId, chunk)),
    ),
    combine,
  });
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
  return { barsByDevice, overlapIndex, failedChunks: failed };
}
