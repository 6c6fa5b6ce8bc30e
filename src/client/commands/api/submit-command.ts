import { useQueryClient } from '@tanstack/react-query';
import {
  SubmissionResponseSchema,
  type DeviceCommand,
  type SubmissionResponse,
} from '#domain/command.ts';
import { QueuedAnswerSchema, type QueuedAnswer } from '#domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { useKeyedMutation, type IntentHeaders } from '../lib/operator-intent.ts';

/** A submission's answer: the command sent, or the change queued for the device's next call. */
export const SubmitAnswerSchema = QueuedAnswerSchema.or(SubmissionResponseSchema);

/**
 * `POST /api/devices/{deviceId}/commands`: 202 with the command ID, or 202 `{ queued }`
 * (`isQueuedAnswer`). Rejects with ApiError `window_overlap` (409), `capability_out_of_range` (422)…
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

export interface CommandSubmission {
  deviceId: string;
  command: DeviceCommand;
}

/**
 * Submits a command as one intent; whatever the answer (a lost one may have taken effect) the
 * device and ledger are read again. An open outcome is checked until decided, or with
 * `untilDecided: false` retried twice.
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
