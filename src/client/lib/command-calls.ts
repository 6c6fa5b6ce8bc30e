import {
  StatusRecordSchema,
  SubmissionResponseSchema,
  type DeviceCommand,
  type StatusRecord,
  type SubmissionResponse,
} from '../../domain/command.ts';
import { apiRequest } from './api-client.ts';

const commandPath = (deviceId: string, commandId: string) =>
  `/devices/${encodeURIComponent(deviceId)}/commands/${encodeURIComponent(commandId)}`;

/**
 * `POST /api/device/{deviceId}/commands` (singular `device`, spec 4): 202 with the command ID.
 * Rejects with ApiError `window_overlap` (409) or `capability_out_of_range` (422) among others.
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

/**
 * `PUT /api/devices/{deviceId}/commands/{commandId}/cancel`: the cancelled status record. Rejects
 * with `not_cancellable` (409) once the command is final (spec 3.1 rule 1).
 */
export function cancelCommand(deviceId: string, commandId: string): Promise<StatusRecord> {
  return apiRequest(`${commandPath(deviceId, commandId)}/cancel`, StatusRecordSchema, {
    method: 'PUT',
  });
}

/** `GET /api/devices/{deviceId}/commands/{commandId}`: the status record (spec 2.4). */
export function getCommandStatus(
  deviceId: string,
  commandId: string,
  signal?: AbortSignal,
): Promise<StatusRecord> {
  return apiRequest(commandPath(deviceId, commandId), StatusRecordSchema, { signal });
}
