import type { QueryClient } from '@tanstack/react-query';
import {
  DeviceChangeAnswerSchema,
  type DeviceChangeAnswer,
  type DeviceChangeRequest,
} from '#domain/queued-change.ts';
import { ChangeWouldWaitDetailsSchema } from '#domain/errors.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { isApiError } from '../../lib/api-error.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import type { IntentHeaders } from '../lib/operator-intent.ts';

/**
 * `POST /api/devices/{deviceId}/changes`: a replace or an undo, planned whole by the BFF against
 * the device's budget (docs/decisions/007-device-call-budget.md, section 2), so none is left half
 * done. 200 sent or 202 queued. Rejects with ApiError `budget_too_tight`, `device_changed`,
 * `change_incomplete` (old cancelled, new refused), `window_overlap`, `invalid_undo_of`; with
 * `ifLater: 'refuse'`, `change_would_wait` (`details.goesAt`) instead of queuing. One
 * `Idempotency-Key`; its steps' keys derive from it (`/1`, `/2`).
 */
export function changeDevice(
  deviceId: string,
  change: DeviceChangeRequest,
  intent: Pick<IntentHeaders, 'idempotencyKey'>,
  ifLater: 'queue' | 'refuse' = 'queue',
): Promise<DeviceChangeAnswer> {
  return apiRequest(`/devices/${encodeURIComponent(deviceId)}/changes`, DeviceChangeAnswerSchema, {
    method: 'POST',
    body: change,
    query: { ifLater },
    idempotencyKey: intent.idempotencyKey,
  });
}

/** When a change refused `change_would_wait` would go, ISO 8601 UTC; undefined for any other error. */
export function wouldWaitUntil(error: unknown): string | undefined {
  if (!isApiError(error) || error.code !== 'change_would_wait') return undefined;
  const details = ChangeWouldWaitDetailsSchema.safeParse(error.details);
  return details.success ? details.data.goesAt : undefined;
}

/** The key of a planned change's submission step (a replace's second), which an undo names in `undoOf`. */
export function submissionKeyOf(answer: DeviceChangeAnswer): string | undefined {
  return answer.change.steps.find((step) => step.call === 'submit')?.idempotencyKey;
}

/** Reads again what a planned change touched: the device's commands, the ledger and the changes. */
export function afterDeviceChange(queryClient: QueryClient, deviceId: string): Promise<void> {
  return invalidateDeviceCommands(queryClient, [deviceId]);
}
