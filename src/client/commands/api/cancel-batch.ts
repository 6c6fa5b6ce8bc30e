import { useQueryClient } from '@tanstack/react-query';
import { BatchCancelResponseSchema, type BatchCancelResponse } from '../../../domain/batch.ts';
import { QueuedAnswerSchema, type QueuedAnswer } from '../../../domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { useKeyedMutation, type IntentHeaders } from '../lib/operator-intent.ts';

/**
 * `PUT /api/batches/{batchCommandId}/cancel`: one result per device, successes and failures
 * mixed (docs/upstream.md, Batches). A 200 does not mean every device was cancelled. 202
 * `{ queued }` when a device's budget of upstream calls cannot carry it now.
 */
export function cancelBatch(
  batchCommandId: string,
  intent?: IntentHeaders,
): Promise<BatchCancelResponse | QueuedAnswer> {
  return apiRequest(
    `/batches/${encodeURIComponent(batchCommandId)}/cancel`,
    QueuedAnswerSchema.or(BatchCancelResponseSchema),
    { method: 'PUT', idempotencyKey: intent?.idempotencyKey, undoOf: intent?.undoOf },
  );
}

/** Which batch a cancel is for, and its devices (whose statuses and history change with it). */
export interface BatchCancel {
  batchCommandId: string;
  deviceIds: readonly string[];
}

/**
 * Cancels a whole batch; whatever the answer, its devices' statuses and histories and the ledger
 * (which records the cancel's per-device results) are read again before the mutation settles.
 */
export function useCancelBatch() {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: ({ batchCommandId, idempotencyKey, undoOf }: BatchCancel & IntentHeaders) =>
      cancelBatch(batchCommandId, { idempotencyKey, undoOf }),
    onSettled: (_answer, _error, { deviceIds }) => invalidateDeviceCommands(queryClient, deviceIds),
  });
}
