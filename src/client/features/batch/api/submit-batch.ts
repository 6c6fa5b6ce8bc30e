import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  BatchSubmissionResponseSchema,
  type BatchRequest,
  type BatchSubmissionResponse,
} from '../../../../domain/batch.ts';
import { invalidateDeviceCommands } from '../../../commands/lib/command-caches.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { batchKeys } from './batch-keys.ts';
import {
  batchListQueryOptions,
  batchRecordQueryOptions,
  type BatchRecord,
} from './batch-records.ts';

/**
 * `POST /api/devices/commands/batch` (DESIGN.md 3): 202 with the batchCommandId and one command
 * per device. The whole batch is refused (problem+json) for more than 50 devices, a repeat, an
 * unknown or unbound device, or a value out of some device's range.
 */
export function submitBatch(request: BatchRequest): Promise<BatchSubmissionResponse> {
  return apiRequest('/devices/commands/batch', BatchSubmissionResponseSchema, {
    method: 'POST',
    body: request,
  });
}

/** Submits a batch and keeps its record in this session's batch list and batch page. */
export function useSubmitBatch(timeZone: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: submitBatch,
    onSuccess: (response, request) => {
      const record: BatchRecord = {
        batchCommandId: response.batchCommandId,
        submittedAt: response.timestamp,
        command: request.command,
        commands: response.commands,
        timeZone,
      };
      queryClient.setQueryData(batchRecordQueryOptions(record.batchCommandId).queryKey, record);
      queryClient.setQueryData(batchListQueryOptions().queryKey, (list) => [
        record,
        ...(list ?? []),
      ]);
      return Promise.all([
        invalidateDeviceCommands(queryClient, request.devices),
        queryClient.invalidateQueries({ queryKey: batchKeys.ledgerList() }),
      ]);
    },
  });
}
