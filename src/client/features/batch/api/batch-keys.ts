/**
 * Query keys of batches, generic to specific: everything, the batch list, one batch's record,
 * the status records of one batch's device commands, one device's command status, its cancels.
 */
export const batchKeys = {
  all: ['batches'] as const,
  lists: () => [...batchKeys.all, 'list'] as const,
  list: () => [...batchKeys.lists(), 'session'] as const,
  ledgerList: () => [...batchKeys.lists(), 'ledger'] as const,
  details: () => [...batchKeys.all, 'detail'] as const,
  detail: (batchCommandId: string) => [...batchKeys.details(), batchCommandId] as const,
  statuses: (batchCommandId: string) => [...batchKeys.all, 'status', batchCommandId] as const,
  status: (batchCommandId: string, deviceId: string, commandId: string) =>
    [...batchKeys.statuses(batchCommandId), deviceId, commandId] as const,
  cancels: (batchCommandId: string) => [...batchKeys.all, 'cancels', batchCommandId] as const,
};
