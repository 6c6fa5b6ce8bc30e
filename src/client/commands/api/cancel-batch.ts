import { useQueryClient } from '@tanstack/react-query';
import { BatchCancelResponseSchema, type BatchCancelResponse } from '#domain/batch.ts';
import { QueuedAnswerSchema, type QueuedAnswer } from '#domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { useKeyedMutation, type IntentHeaders } from '../lib/operator-intent.ts';

/**
 * `PUT /api/batches/{batchCommandId}/cancel`: one result per device, successes and failures mixed
 * (docs/upstream.md, Batches); 202 `{ queued }` when the devices' budget cannot carry it now.
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

export interface BatchCancel {
  batchCommandId: string;
  deviceIds: readonly string[];
}

/** Cancels a whole batch; whatever the answer, its devices and the ledger are read again before it settles. */
export function useCancelBatch() {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: ({ batchCommandId, idempotencyKey, undoOf }: BatchCancel & IntentHeaders) =>
      cancelBatch(batchCommandId, { idempotencyKey, undoOf }),
    onSettled: (_answer, _error, { deviceIds }) => invalidateDeviceCommands(queryClient, deviceIds),
  });
}
