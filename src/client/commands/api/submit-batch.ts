import { useQueryClient } from '@tanstack/react-query';
import {
  BatchSubmissionResponseSchema,
  type BatchRequest,
  type BatchSubmissionResponse,
} from '../../../domain/batch.ts';
import { QueuedAnswerSchema, type QueuedAnswer } from '../../../domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { useKeyedMutation, type IntentHeaders } from '../lib/operator-intent.ts';

/**
 * `POST /api/batches` (docs/architecture.md, Ledger: batches): 202 with the batchCommandId, the
 * device commands found so far in the devices' histories and the devices not confirmed yet (the
 * ledger's entry of the batch names the others as they are found). The whole batch is refused
 * (problem+json) for more than 50 devices, a repeat, an unknown or unbound device, or a value out
 * of some device's range. 202 `{ queued }` when a device's budget of upstream calls cannot carry it
 * now: it goes at `queued.goesAt`, to all its devices at once.
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
 * Submits a batch as one operator intent (one `Idempotency-Key` for all its tries, so the same
 * batch is never created twice); whatever the answer, its devices and the ledger are read again. The mutation
 * does not wait for that: the ledger's record of the batch is what the next screen reads, and
 * holding the submission until up to 50 devices' histories are read again would only delay it.
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
