import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DeviceCommand } from '../../../../domain/command.ts';
import { submitCommand } from '../../../lib/command-calls.ts';
import { commandKeys } from './command-keys.ts';

export function useSubmitCommand(deviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (command: DeviceCommand) => submitCommand(deviceId, command),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: commandKeys.deviceLists(deviceId) }),
  });
}
