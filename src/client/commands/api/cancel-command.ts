import { useQueryClient } from '@tanstack/react-query';
import { StatusRecordSchema, type StatusRecord } from '../../../domain/command.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands, writeStatusIntoHistory } from '../lib/command-caches.ts';
import { useKeyedMutation, type IntentHeaders } from '../lib/operator-intent.ts';
import { commandStatusQueryOptions } from './get-command-status.ts';

/**
 * `PUT /api/devices/{deviceId}/commands/{commandId}/cancel`: the cancelled status record. Rejects
 * with `not_cancellable` (409) once the command is final (spec 3.1 rule 1).
 */
export function cancelCommand(
  deviceId: string,
  commandId: string,
  intent?: IntentHeaders,
): Promise<StatusRecord> {
  return apiRequest(
    `/devices/${encodeURIComponent(deviceId)}/commands/${encodeURIComponent(commandId)}/cancel`,
    StatusRecordSchema,
    { method: 'PUT', idempotencyKey: intent?.idempotencyKey, undoOf: intent?.undoOf },
  );
}

/** Which command a cancel is for. */
export interface CommandCancel {
  deviceId: string;
  commandId: string;
}

/**
 * Cancels one command, as one operator intent (one `Idempotency-Key` for all its tries). Its answer (the cancelled record) goes into the status and history caches
 * at once; whatever the answer, the device's history and statuses and the ledger are read again.
 */
export function useCancelCommand() {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: ({ deviceId, commandId, ...intent }: CommandCancel & IntentHeaders) =>
      cancelCommand(deviceId, commandId, intent),
    onSuccess: (record) => {
      queryClient.setQueryData(
        commandStatusQueryOptions(record.deviceId, record.id).queryKey,
        record,
      );
      writeStatusIntoHistory(queryClient, record);
    },
    onSettled: (_record, _error, { deviceId }) => invalidateDeviceCommands(queryClient, [deviceId]),
  });
}
