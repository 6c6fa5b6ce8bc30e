import { useQueryClient } from '@tanstack/react-query';
import {
  BatchSubmissionResponseSchema,
  type BatchRequest,
  type BatchSubmissionResponse,
} from '#domain/batch.ts';
import { QueuedAnswerSchema, type QueuedAnswer } from '#domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { useKeyedMutation, type IntentHeaders } from '../lib/operator-intent.ts';

/**
 * `POST /api/batches` (docs/architecture.md, Ledger: batches): 202 with the batchCommandId and the
 * device commands found so far, or 202 `{ queued }`. Refused whole (problem+json) for over 50
 * devices, a repeat, an unknown or unbound device, or a value out of some device's range.
 */
export function submitBatch(
  request: BatchRequest,
  intent?: IntentHeaders,
): Promise<BatchSubmissionResponse | QueuedAnswer> {
  return apiRequest('/batches', QueuedAnswerSchema.or(BatchSubmissionResponseSchema), {
    method: 'POST',
    body: request,
    idempotencyKey: intent?.idempotencyKey,
    undoOf: intent?.undoOf,
  });
}

/**
 * Submits a batch as one intent (one `Idempotency-Key`, never created twice); devices and ledger
 * are read again without waiting, as re-reading 50 histories would only delay the answer.
 */
export function useSubmitBatch() {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    untilDecided: true,
    mutationFn: ({ devices, command, ...intent }: BatchRequest & IntentHeaders) =>
      submitBatch({ devices, command }, intent),
    onSettled: (_response, _error, request) => {
      void invalidateDeviceCommands(queryClient, request.devices);
    },
  });
}
