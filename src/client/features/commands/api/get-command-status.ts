import { queryOptions, useQuery } from '@tanstack/react-query';
import { isFinalStatus, type StatusRecord } from '../../../../domain/command.ts';
import { getCommandStatus } from '../../../lib/command-calls.ts';
import { nextStatusPollMs, STATUS_POLL_MS } from '../../../lib/status-polling.ts';
import { writeIntoHistoryLists } from '../lib/command-caches.ts';
import { commandKeys } from './command-keys.ts';

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
    staleTime: STATUS_POLL_MS,
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
