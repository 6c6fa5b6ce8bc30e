import { queryOptions, useQueries } from '@tanstack/react-query';
import {
  isFinalStatus,
  StatusRecordSchema,
  type StatusRecord,
} from '../../../../domain/command.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import type { ApiError } from '../../../lib/api-error.ts';
import { batchKeys } from './batch-keys.ts';

/** How often a device command of a batch that is not final is polled (spec 6). */
export const BATCH_STATUS_POLL_MS = 2_000;

/** `GET /api/devices/{deviceId}/commands/{commandId}`: one device command's status record. */
export function getCommandStatus(
  deviceId: string,
  commandId: string,
  signal?: AbortSignal,
): Promise<StatusRecord> {
  return apiRequest(
    `/devices/${encodeURIComponent(deviceId)}/commands/${encodeURIComponent(commandId)}`,
    StatusRecordSchema,
    { signal },
  );
}

/** Next poll, or `false`: never after a final status, nor after a refusal that will not pass. */
function nextPollMs(record: StatusRecord | undefined, error: ApiError | null): number | false {
  if (record && isFinalStatus(record.status)) return false;
  if (error && error.status >= 400 && error.status < 500 && error.status !== 429) return false;
  return BATCH_STATUS_POLL_MS;
}

export const batchCommandStatusQueryOptions = (
  batchCommandId: string,
  deviceId: string,
  commandId: string,
) =>
  queryOptions({
    queryKey: batchKeys.status(batchCommandId, deviceId, commandId),
    queryFn: ({ signal }) => getCommandStatus(deviceId, commandId, signal),
    staleTime: BATCH_STATUS_POLL_MS,
    refetchInterval: (query) => nextPollMs(query.state.data, query.state.error),
  });

/**
 * The status of every device command of a batch, each polled until final; polling pauses in
 * background tabs (TanStack Query's default `refetchIntervalInBackground: false`).
 */
export function useBatchCommandStatuses(
  batchCommandId: string,
  commands: readonly { deviceId: string; id: string }[],
) {
  return useQueries({
    queries: commands.map((c) => batchCommandStatusQueryOptions(batchCommandId, c.deviceId, c.id)),
  });
}
