import { queryOptions, useQueries } from '@tanstack/react-query';
import { getCommandStatus } from '../../../commands/api/get-command-status.ts';
import { nextStatusPollMs, STATUS_POLL_MS } from '../../../commands/lib/status-polling.ts';
import { batchKeys } from './batch-keys.ts';

export const batchCommandStatusQueryOptions = (
  batchCommandId: string,
  deviceId: string,
  commandId: string,
) =>
  queryOptions({
    queryKey: batchKeys.status(batchCommandId, deviceId, commandId),
    queryFn: ({ signal }) => getCommandStatus(deviceId, commandId, signal),
    staleTime: STATUS_POLL_MS,
    refetchInterval: (query) => nextStatusPollMs(query.state.data?.status, query.state.error),
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
