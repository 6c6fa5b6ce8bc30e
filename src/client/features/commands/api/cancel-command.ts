import { useMutation, useQueryClient } from '@tanstack/react-query';
import { cancelCommand } from '../../../lib/command-calls.ts';
import { writeIntoHistoryLists } from '../lib/command-caches.ts';
import { commandKeys } from './command-keys.ts';

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
