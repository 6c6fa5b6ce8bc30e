import { useMutation, useQueryClient } from '@tanstack/react-query';
import { StatusRecordSchema, type StatusRecord } from '../../../../domain/command.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { writeIntoHistoryLists } from '../lib/command-caches.ts';
import { commandKeys } from './command-keys.ts';

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

/** Cancels a command of `deviceId`; whatever the answer, the device's statuses are read again. */
export function useCancelCommand(deviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (commandId: string) => cancelCommand(deviceId, commandId),
    onSuccess: (record) => {
      queryClient.setQueryData(commandKeys.detail(deviceId, record.id), record);
      writeIntoHistoryLists(queryClient, record);
    },
    onSettled: (_record, _error, commandId) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: commandKeys.detail(deviceId, commandId) }),
        queryClient.invalidateQueries({ queryKey: commandKeys.deviceLists(deviceId) }),
      ]),
  });
}
