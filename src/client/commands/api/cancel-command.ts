import { useMutation, useQueryClient } from '@tanstack/react-query';
import { StatusRecordSchema, type StatusRecord } from '../../../domain/command.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { invalidateDeviceCommands, writeStatusIntoHistory } from '../lib/command-caches.ts';
import { commandStatusQueryOptions } from './get-command-status.ts';

/**
 * `PUT /api/devices/{deviceId}/commands/{commandId}/cancel`: the cancelled status record. Rejects
 * with `not_cancellable` (409) once the command is final (spec 3.1 rule 1).
 */
export function cancelCommand(deviceId: string, commandId: string): Promise<StatusRecord> {
  return apiRequest(
    `/devices/${encodeURIComponent(deviceId)}/commands/${encodeURIComponent(commandId)}/cancel`,
    StatusRecordSchema,
    { method: 'PUT' },
  );
}

/** Which command a cancel is for. */
export interface CommandCancel {
  deviceId: string;
  commandId: string;
}

/**
 * Cancels one command. Its answer (the cancelled record) goes into the status and history caches
 * at once; whatever the answer, the device's history and statuses and the ledger are read again.
 */
export function useCancelCommand() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ deviceId, commandId }: CommandCancel) => cancelCommand(deviceId, commandId),
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
