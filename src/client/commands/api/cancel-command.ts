import { useQueryClient } from '@tanstack/react-query';
import {
  applyCancellation,
  CommandCancellationSchema,
  type CommandCancellation,
  type StatusRecord,
} from '../../../domain/command.ts';
import {
  QueuedAnswerSchema,
  isQueuedAnswer,
  type QueuedAnswer,
} from '../../../domain/queued-change.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands, writeStatusIntoHistory } from '../lib/command-caches.ts';
import { useKeyedMutation, type IntentHeaders } from '../lib/operator-intent.ts';
import { commandStatusQueryOptions } from './get-command-status.ts';

/**
 * `PUT /api/devices/{deviceId}/commands/{commandId}/cancel`: what the cancel did (the command is
 * cancelled by an operator, and when), or 202 `{ queued }` when the device's budget of upstream
 * calls cannot carry it now. Rejects with `not_cancellable` (409) once the command is final
 * (docs/upstream.md, Lifecycle).
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

/** Which command a cancel is for. */
export interface CommandCancel {
  deviceId: string;
  commandId: string;
}

/**
 * Cancels one command, as one operator intent (one `Idempotency-Key` for all its tries). Its
 * answer is written into the status record held for the command, in the status and history
 * caches at once; whatever the answer, the device's history and statuses and the ledger are read
 * again.
 */
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
