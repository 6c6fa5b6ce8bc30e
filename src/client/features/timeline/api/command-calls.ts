import {
  StatusRecordSchema,
  SubmissionResponseSchema,
  type DeviceCommand,
  type StatusRecord,
  type SubmissionResponse,
} from '../../../../domain/command.ts';
import { apiRequest } from '../../../lib/api-client.ts';

const devicePath = (deviceId: string) => encodeURIComponent(deviceId);

/**
 * Submits a device command (`POST /api/device/{deviceId}/commands`, spec 2.3, singular `device`).
 * Rejects with ApiError `window_overlap` (409) or `capability_out_of_range` (422) among others.
 */
export function submitCommand(
  deviceId: string,
  command: DeviceCommand,
): Promise<SubmissionResponse> {
  return apiRequest(`/device/${devicePath(deviceId)}/commands`, SubmissionResponseSchema, {
    method: 'POST',
    body: command,
  });
}

/** Cancels a command (`PUT .../cancel`, spec 4); rejects with `not_cancellable` (409) when final. */
export function cancelCommand(deviceId: string, commandId: string): Promise<StatusRecord> {
  return apiRequest(
    `/devices/${devicePath(deviceId)}/commands/${encodeURIComponent(commandId)}/cancel`,
    StatusRecordSchema,
    { method: 'PUT' },
  );
}

/** One command's status record (`GET /api/devices/{deviceId}/commands/{commandId}`, spec 2.4). */
export function getCommandStatus(
  deviceId: string,
  commandId: string,
  signal?: AbortSignal,
): Promise<StatusRecord> {
  return apiRequest(
    `/devices/${devicePath(deviceId)}/commands/${encodeURIComponent(commandId)}`,
    StatusRecordSchema,
    { signal },
  );
}
