import { useQueryClient } from '@tanstack/react-query';
import {
  applyCancellation,
  CommandCancellationSchema,
  type CommandCancellation,
  type StatusRecord,
} from '#domain/command.ts';
import { QueuedAnswerSchema, isQueuedAnswer, type QueuedAnswer } from '#domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands, writeStatusIntoHistory } from '../lib/command-caches.ts';
import { useKeyedMutation, type IntentHeaders } from '../lib/operator-intent.ts';
import { commandStatusQueryOptions } from './get-command-status.ts';

/**
 * `PUT /api/devices/{deviceId}/commands/{commandId}/cancel`: the cancelled record, or 202
 * `{ queued }`. Rejects with `not_cancellable` (409) once final (docs/upstream.md, Lifecycle).
 */
export function cancelCommand(
  deviceId: string,
  commandId: string,
  intent?: IntentHeaders,
): Promise<CommandCancellation | QueuedAnswer> {
  return apiRequest(
    `/devices/${encodeURIComponent(deviceId)}/commands/${encodeURIComponent(commandId)}/cancel`,
    QueuedAnswerSchema.or(CommandCancellationSchema),
    { method: 'PUT', idempotencyKey: intent?.idempotencyKey, undoOf: intent?.undoOf },
  );
}

export interface CommandCancel {
  deviceId: string;
  commandId: string;
}

/** Cancels one command as one intent (one `Idempotency-Key`); its answer is written into the caches at once. */
export function useCancelCommand() {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: ({ deviceId, commandId, ...intent }: CommandCancel & IntentHeaders) =>
      cancelCommand(deviceId, commandId, intent),
    onSuccess: (cancellation) => {
      if (isQueuedAnswer(cancellation)) return;
      const { queryKey } = commandStatusQueryOptions(cancellation.deviceId, cancellation.commandId);
      const held = queryClient.getQueryData<StatusRecord>(queryKey);
      if (!held) return;
      const record = applyCancellation(held, cancellation);
      queryClient.setQueryData(queryKey, record);
      writeStatusIntoHistory(queryClient, record);
    },
    onSettled: (_record, _error, { deviceId }) => invalidateDeviceCommands(queryClient, [deviceId]),
  });
}
