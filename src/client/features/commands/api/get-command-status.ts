import { queryOptions, useQuery } from '@tanstack/react-query';
import {
  isFinalStatus,
  StatusRecordSchema,
  type CommandStatus,
  type StatusRecord,
} from '../../../../domain/command.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import type { ApiError } from '../../../lib/api-error.ts';
import { writeIntoHistoryLists } from '../lib/command-caches.ts';
import { commandKeys } from './command-keys.ts';

/** How often a command that is not final is polled (spec 6: progress is read by polling). */
export const COMMAND_STATUS_POLL_MS = 2_000;

/** `GET /api/devices/{deviceId}/commands/{commandId}`: the status record (spec 2.4). */
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
 * Next poll of a command, or `false` to stop: a final status never changes again (spec 3.1), and
 * a refusal (4xx but 429: unbound site, unknown command) will not pass by asking again.
 */
export function nextStatusPollMs(
  status: CommandStatus | undefined,
  error: ApiError | null,
): number | false {
  if (status !== undefined && isFinalStatus(status)) return false;
  if (error && error.status >= 400 && error.status < 500 && error.status !== 429) return false;
  return COMMAND_STATUS_POLL_MS;
}

/**
 * One command's status, polled while received or executing. Polling pauses in background tabs
 * (TanStack Query's `refetchIntervalInBackground: false`) and resumes on focus. Each answer is
 * also written into the device's history lists so every view shows the same status.
 */
export const commandStatusQueryOptions = (deviceId: string, commandId: string) =>
  queryOptions({
    queryKey: commandKeys.detail(deviceId, commandId),
    queryFn: async ({ signal, client }) => {
      const record = await getCommandStatus(deviceId, commandId, signal);
      writeIntoHistoryLists(client, record);
      return record;
    },
    staleTime: COMMAND_STATUS_POLL_MS,
    refetchInterval: (query) => nextStatusPollMs(query.state.data?.status, query.state.error),
  });

/**
 * Polls `record` (as a list showed it at `knownAtMs`) until it is final; a final record is not
 * asked for at all.
 */
export function useCommandStatus(record: StatusRecord, knownAtMs: number) {
  return useQuery({
    ...commandStatusQueryOptions(record.deviceId, record.id),
    initialData: record,
    initialDataUpdatedAt: knownAtMs,
    enabled: !isFinalStatus(record.status),
  });
}
