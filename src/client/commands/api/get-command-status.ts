import { queryOptions, useQueries, useQuery } from '@tanstack/react-query';
import { isFinalStatus, StatusRecordSchema, type StatusRecord } from '#domain/command.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { writeStatusIntoHistory } from '../lib/command-caches.ts';
import { nextStatusPollMs, STATUS_POLL_MS } from '../lib/status-polling.ts';
import { commandKeys } from './command-keys.ts';

/** `GET /api/devices/{deviceId}/commands/{commandId}`: the status record. Rejects with ApiError (404 `not_found`). */
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
 * One command's status, polled while not final (docs/upstream.md, Status record), paused in
 * background tabs; each answer is written into the device's cached history slots.
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

/** Polls `record` (as seen at `knownAtMs`) until final; a final record is not asked for. */
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
