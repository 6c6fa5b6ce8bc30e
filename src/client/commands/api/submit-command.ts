import { useQueryClient } from '@tanstack/react-query';
import {
  SubmissionResponseSchema,
  type DeviceCommand,
  type SubmissionResponse,
} from '../../../domain/command.ts';
import { QueuedAnswerSchema, type QueuedAnswer } from '../../../domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { useKeyedMutation, type IntentHeaders } from '../lib/operator-intent.ts';

/** A submission's answer: the command sent, or the change queued for the device's next call. */
export const SubmitAnswerSchema = QueuedAnswerSchema.or(SubmissionResponseSchema);

/**
 * `POST /api/devices/{deviceId}/commands`: 202 with the command ID, or 202 `{ queued }` when the
 * device's budget of upstream calls cannot carry it now (it goes at `queued.goesAt`, by itself;
 * `isQueuedAnswer` tells them apart). Rejects with ApiError `window_overlap` (409) or
 * `capability_out_of_range` (422) among others.
 */
export function submitCommand(
  deviceId: string,
  command: DeviceCommand,
  intent?: IntentHeaders,
): Promise<SubmissionResponse | QueuedAnswer> {
  return apiRequest(`/devices/${encodeURIComponent(deviceId)}/commands`, SubmitAnswerSchema, {
    method: 'POST',
    body: command,
    idempotencyKey: intent?.idempotencyKey,
    undoOf: intent?.undoOf,
  });
}

/** What a submission sends: the device and its command. */
export interface CommandSubmission {
  deviceId: string;
  command: DeviceCommand;
}

/**
 * Submits a command as one operator intent (one `Idempotency-Key` for all its tries); whatever
 * the answer (a lost one may still have taken effect), the device's history and statuses and the
 * ledger are read again, on every screen that shows them. An open outcome is checked until it is
 * decided (`untilDecided`, the default; the screen shows `outcomeChecking`); with `false`, two
 * quick retries, then the error.
 */
export function useSubmitCommand({ untilDecided = true }: { untilDecided?: boolean } = {}) {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    untilDecided,
    mutationFn: ({ deviceId, command, ...intent }: CommandSubmission & IntentHeaders) =>
      submitCommand(deviceId, command, intent),
    onSettled: (_response, _error, { deviceId }) =>
      invalidateDeviceCommands(queryClient, [deviceId]),
  });
}
