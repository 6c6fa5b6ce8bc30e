import { queryOptions, useQueries, useQuery } from '@tanstack/react-query';
import { isFinalStatus, StatusRecordSchema, type StatusRecord } from '../../../domain/command.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { writeStatusIntoHistory } from '../lib/command-caches.ts';
import { nextStatusPollMs, STATUS_POLL_MS } from '../lib/status-polling.ts';
import { commandKeys } from './command-keys.ts';

/**
 * `GET /api/devices/{deviceId}/commands/{commandId}`: the status record (docs/upstream.md, Status
 * record). Rejects with ApiError, e.g. 404 `not_found` for an unknown command.
 */
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

/**
 * One command's status, polled while received or executing (docs/upstream.md, Status record:
 * progress is polled). Polling pauses in background tabs (TanStack Query's
 * `refetchIntervalInBackground: false`) and resumes on focus. Each answer is also written into the
 * device's cached history slots, so every screen shows the status the last poll learnt.
 */
export const commandStatusQueryOptions = (deviceId: string, commandId: string) =>
  queryOptions({
    queryKey: commandKeys.status(deviceId, commandId),
    queryFn: async ({ signal, client }) => {
      const record = await getCommandStatus(deviceId, commandId, signal);
      writeStatusIntoHistory(client, record);
      return record;
    },
    staleTime: STATUS_POLL_MS,
    refetchInterval: (query) => nextStatusPollMs(query.state.data?.status, query.state.error),
  });

/**
 * Polls `record` (as a history list showed it at `knownAtMs`) until it is final; a final record
 * is not asked for at all.
 */
export function useCommandStatus(record: StatusRecord, knownAtMs: number) {
  return useQuery({
    ...commandStatusQueryOptions(record.deviceId, record.id),
    initialData: record,
    initialDataUpdatedAt: knownAtMs,
    enabled: !isFinalStatus(record.status),
  });
}

/** The status of each of `commands` (a batch's device commands), each polled until final. */
export function useCommandStatuses(commands: readonly { deviceId: string; id: string }[]) {
  return useQueries({
    queries: commands.map((c) => commandStatusQueryOptions(c.deviceId, c.id)),
  });
}
