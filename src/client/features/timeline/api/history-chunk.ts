import { queryOptions } from '@tanstack/react-query';
import { isFinalStatus } from '../../../../domain/command.ts';
import { HistoryResponseSchema, type HistoryResponse } from '../../../../domain/history.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import type { HistoryChunk } from '../lib/history-chunks.ts';

/** How often a chunk holding a non-final command is fetched again while its row is in view. */
export const LIVE_POLL_MS = 3_000;

/** Query keys of the timeline's history chunks, generic to specific. */
export const timelineHistoryKeys = {
  all: ['timeline-history'] as const,
  device: (deviceId: string) => [...timelineHistoryKeys.all, deviceId] as const,
  chunk: (deviceId: string, chunk: HistoryChunk) =>
    [...timelineHistoryKeys.device(deviceId), chunk.startMs, chunk.endMs] as const,
};

/** True while the chunk holds a command that can still change (spec 3.1). */
export function hasLiveCommand(data: HistoryResponse | undefined): boolean {
  return data?.commands.some((command) => !isFinalStatus(command.status)) ?? false;
}

/**
 * One device's history over one 30-day chunk (`GET /api/devices/{deviceId}/commands`, DESIGN.md
 * 3), cached per device and chunk. Polled every {@link LIVE_POLL_MS} while it holds a received or
 * executing command, never once all are final; TanStack Query pauses the interval in background
 * tabs (`refetchIntervalInBackground` is false), so hidden tabs cost the upstream nothing.
 */
export function historyChunkQuery(deviceId: string, chunk: HistoryChunk) {
  return queryOptions({
    queryKey: timelineHistoryKeys.chunk(deviceId, chunk),
    queryFn: ({ signal }) =>
      apiRequest(`/devices/${encodeURIComponent(deviceId)}/commands`, HistoryResponseSchema, {
        query: {
          startTime: new Date(chunk.startMs).toISOString(),
          endTime: new Date(chunk.endMs).toISOString(),
        },
        signal,
      }),
    staleTime: 30_000,
    gcTime: 5 * 60_000,
    refetchInterval: (query) => (hasLiveCommand(query.state.data) ? LIVE_POLL_MS : false),
  });
}
