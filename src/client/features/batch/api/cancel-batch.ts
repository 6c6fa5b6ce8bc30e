import { useMutation, useQueryClient } from '@tanstack/react-query';
import { BatchCancelResponseSchema, type BatchCancelResponse } from '../../../../domain/batch.ts';
import { StatusRecordSchema, type StatusRecord } from '../../../../domain/command.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { batchKeys } from './batch-keys.ts';

/**
 * `PUT /api/devices/commands/batch/{batchCommandId}/cancel` (DESIGN.md 3): one result per device,
 * successes and failures mixed (spec 2.5, 7). A 200 does not mean every device was cancelled.
 */
export function cancelBatch(batchCommandId: string): Promise<BatchCancelResponse> {
  return apiRequest(
    `/devices/commands/batch/${encodeURIComponent(batchCommandId)}/cancel`,
    BatchCancelResponseSchema,
    { method: 'PUT' },
  );
}

/** `PUT /api/devices/{deviceId}/commands/{commandId}/cancel`: one device again, alone. */
export function cancelDeviceCommand(deviceId: string, commandId: string): Promise<StatusRecord> {
  return apiRequest(
    `/devices/${encodeURIComponent(deviceId)}/commands/${encodeURIComponent(commandId)}/cancel`,
    StatusRecordSchema,
    { method: 'PUT' },
  );
}

/**
 * Cancels the whole batch; the device statuses and the ledger's record of its cancels are read
 * again whatever the answer.
 */
export function useCancelBatch(batchCommandId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => cancelBatch(batchCommandId),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: batchKeys.statuses(batchCommandId) }),
        queryClient.invalidateQueries({ queryKey: batchKeys.cancels(batchCommandId) }),
      ]),
  });
}

/** Retries the cancel of one device of the batch; its status is read again whatever the answer. */
export function useCancelBatchDevice(batchCommandId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ deviceId, commandId }: { deviceId: string; commandId: string }) =>
      cancelDeviceCommand(deviceId, commandId),
    onSuccess: (record) =>
      queryClient.setQueryData(
        batchKeys.status(batchCommandId, record.deviceId, record.id),
        record,
      ),
    onSettled: (_record, _error, { deviceId, commandId }) =>
      queryClient.invalidateQueries({
        queryKey: batchKeys.status(batchCommandId, deviceId, commandId),
      }),
  });
}
