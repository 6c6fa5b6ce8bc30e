import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  SubmissionResponseSchema,
  type DeviceCommand,
  type SubmissionResponse,
} from '../../../../domain/command.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { commandKeys } from './command-keys.ts';

/**
 * `POST /api/device/{deviceId}/commands` (singular `device`, spec 4): 202 with the command ID.
 * Rejects with `window_overlap` (409) or `capability_out_of_range` (422) among others.
 */
export function submitCommand(
  deviceId: string,
  command: DeviceCommand,
): Promise<SubmissionResponse> {
  return apiRequest(`/device/${encodeURIComponent(deviceId)}/commands`, SubmissionResponseSchema, {
    method: 'POST',
    body: command,
  });
}

export function useSubmitCommand(deviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (command: DeviceCommand) => submitCommand(deviceId, command),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: commandKeys.deviceLists(deviceId) }),
  });
}
