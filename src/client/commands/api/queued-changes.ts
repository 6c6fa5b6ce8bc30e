import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  QueuedChangePageSchema,
  QueuedChangeStatusSchema,
  isWaitingChange,
  type QueuedChangePage,
  type QueuedChangeQuery,
  type QueuedChangeStatus,
} from '#domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { commandKeys } from './command-keys.ts';

/**
 * `GET /api/changes` (docs/decisions/007-device-call-budget.md, section 2): queued changes,
 * newest first. Rejects with ApiError, e.g. 401 `not_signed_in` once the session has ended.
 */
export function getQueuedChanges(
  query: QueuedChangeQuery,
  signal?: AbortSignal,
): Promise<QueuedChangePage> {
  return apiRequest('/changes', QueuedChangePageSchema, { query, signal });
}

/** How often a list with changes still waiting is read again when no event was pushed, ms. */
export const WAITING_REFRESH_MS = 10_000;

/**
 * How a read of queued changes stays fresh: 5 s, and read again every {@link WAITING_REFRESH_MS}
 * while `waits` says its answer (undefined before the first) holds a change still waiting.
 */
const refreshWhileWaiting = <T>(waits: (data: T | undefined) => boolean) => ({
  staleTime: 5_000,
  refetchInterval: (q: { state: { data: T | undefined } }) =>
    waits(q.state.data) ? WAITING_REFRESH_MS : false,
});

/** One page of queued changes: stale on each pushed `queuedChangeChanged`, polled while any waits (the stream may be down). */
export const queuedChangesQueryOptions = (query: QueuedChangeQuery) =>
  queryOptions({
    queryKey: commandKeys.changesPage(query),
    queryFn: ({ signal }) => getQueuedChanges(query, signal),
    ...refreshWhileWaiting<QueuedChangePage>(
      (page) => page?.changes.some((change) => isWaitingChange(change.state)) === true,
    ),
  });

/** `GET /api/changes/{changeId}`: one queued change as it stands. Rejects with ApiError. */
export function getQueuedChange(
  changeId: string,
  signal?: AbortSignal,
): Promise<QueuedChangeStatus> {
  return apiRequest(`/changes/${encodeURIComponent(changeId)}`, QueuedChangeStatusSchema, {
    signal,
  });
}

/** One queued change, refreshed as {@link queuedChangesQueryOptions} is until it ends. */
export const queuedChangeQueryOptions = (changeId: string) =>
  queryOptions({
    queryKey: commandKeys.change(changeId),
    queryFn: ({ signal }) => getQueuedChange(changeId, signal),
    ...refreshWhileWaiting<QueuedChangeStatus>(
      (change) => change === undefined || isWaitingChange(change.state),
    ),
  });

const WithdrawnSchema = z.object({ change: QueuedChangeStatusSchema });

/**
 * `DELETE /api/changes/{changeId}`: withdraws a queued change before its first step goes. Rejects
 * with `change_not_withdrawable` (409) or `change_not_found` (404).
 */
export async function withdrawChange(changeId: string): Promise<QueuedChangeStatus> {
  const { change } = await apiRequest(`/changes/${encodeURIComponent(changeId)}`, WithdrawnSchema, {
    method: 'DELETE',
  });
  return change;
}

/** Withdraws a queued change; the lists of changes and its devices' commands are read again. */
export function useWithdrawChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: Pick<QueuedChangeStatus, 'id' | 'deviceIds'>) => withdrawChange(change.id),
    onSettled: (_answer, _error, change) => invalidateDeviceCommands(queryClient, change.deviceIds),
  });
}
