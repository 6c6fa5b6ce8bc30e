import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  QueuedChangePageSchema,
  QueuedChangeStatusSchema,
  type QueuedChangePage,
  type QueuedChangeQuery,
  type QueuedChangeStatus,
} from '../../../domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { commandKeys } from './command-keys.ts';

/**
 * `GET /api/changes` (docs/decisions/007-device-call-budget.md, section 2): the account's changes
 * queued for their devices' budget of upstream calls, newest first. Rejects with ApiError, e.g.
 * 401 `not_signed_in` when the session has ended.
 */
export function getQueuedChanges(
  query: QueuedChangeQuery,
  signal?: AbortSignal,
): Promise<QueuedChangePage> {
  const { limit, ...filters } = query;
  return apiRequest('/changes', QueuedChangePageSchema, {
    query: { ...filters, limit: limit === undefined ? undefined : String(limit) },
    signal,
  });
}

/** How often a list with changes still waiting is read again when no event was pushed, ms. */
export const WAITING_REFRESH_MS = 10_000;

/**
 * One filtered page of the queued changes. Pushed events (`queuedChangeChanged`) make it stale at
 * once; while a change waits it is also read again every {@link WAITING_REFRESH_MS}, the fallback
 * when the event stream is down. The BFF answers from its own database: no upstream call.
 */
export const queuedChangesQueryOptions = (query: QueuedChangeQuery) =>
  queryOptions({
    queryKey: commandKeys.changesPage(query),
    queryFn: ({ signal }) => getQueuedChanges(query, signal),
    staleTime: 5_000,
    refetchInterval: (q) =>
      q.state.data?.changes.some(
        (change) => change.state === 'queued' || change.state === 'sending',
      )
        ? WAITING_REFRESH_MS
        : false,
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

/**
 * One queued change, followed to its end: pushed events (`queuedChangeChanged`, under
 * `commandKeys.changes()`) make it stale at once; while it waits it is also read again every
 * {@link WAITING_REFRESH_MS}, the fallback when the event stream is down. An ended change (sent,
 * withdrawn, failed) does not change again.
 */
export const queuedChangeQueryOptions = (changeId: string) =>
  queryOptions({
    queryKey: commandKeys.change(changeId),
    queryFn: ({ signal }) => getQueuedChange(changeId, signal),
    staleTime: 5_000,
    refetchInterval: (q) =>
      q.state.data === undefined ||
      q.state.data.state === 'queued' ||
      q.state.data.state === 'sending'
        ? WAITING_REFRESH_MS
        : false,
  });

const WithdrawnSchema = z.object({ change: QueuedChangeStatusSchema });

/**
 * `DELETE /api/changes/{changeId}`: withdraws a queued change before its first step goes; nothing
 * of it is sent. Rejects with ApiError `change_not_withdrawable` (409, worded by the BFF: it has
 * started sending or has ended) or `change_not_found` (404).
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
