import type { HistoryQuery } from '../../../../domain/history.ts';

/**
 * Query keys of device commands, generic to specific: everything, the history lists (all, one
 * device's, one device's range and filter), the status records (one command's).
 */
export const commandKeys = {
  all: ['commands'] as const,
  lists: () => [...commandKeys.all, 'list'] as const,
  deviceLists: (deviceId: string) => [...commandKeys.lists(), deviceId] as const,
  list: (deviceId: string, query: HistoryQuery) =>
    [...commandKeys.deviceLists(deviceId), query] as const,
  details: () => [...commandKeys.all, 'detail'] as const,
  detail: (deviceId: string, commandId: string) =>
    [...commandKeys.details(), deviceId, commandId] as const,
};
