import type { QueryClient } from '@tanstack/react-query';
import {
  DeviceChangeAnswerSchema,
  type DeviceChangeAnswer,
  type DeviceChangeRequest,
} from '../../../domain/queued-change.ts';
import { ChangeWouldWaitDetailsSchema } from '../../../domain/errors.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { isApiError } from '../../lib/api-error.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import type { IntentHeaders } from '../lib/operator-intent.ts';

/**
 * `POST /api/devices/{deviceId}/changes`: a replace, or the undo of a submission, a cancel or a
 * replace, planned as a whole by the BFF with the device's budget of upstream calls before its
 * first call (docs/decisions/007-device-call-budget.md, section 2), so no replace is left half
 * done by the browser. Answers the change sent (200, with `cancelled` and `submitted`) or queued
 * (202, `queued.goesAt`). Rejects with ApiError `budget_too_tight` (409, nothing sent, with the
 * earliest start the budget allows), `device_changed` (409), `change_incomplete` (409: the old
 * window is cancelled and the new one refused), `window_overlap`, `invalid_undo_of` among others.
 * One `Idempotency-Key` for the whole change: its steps' keys are made from it (`/1`, `/2`).
 * With `ifLater` `refuse`, a change the budget would queue is neither queued nor sent: ApiError
 * `change_would_wait` (409, `details.goesAt`), so the screen asks the operator first.
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

/**
 * The key of a planned change's submission step, which an undo of the change names in `undoOf`
 * (a replace's is its second step's). Taken from the answer when it has the steps.
 */
export function submissionKeyOf(answer: DeviceChangeAnswer): string | undefined {
  return answer.change.steps.find((step) => step.call === 'submit')?.idempotencyKey;
}

/** Reads again what a planned change touched: the device's commands, the ledger and the changes. */
export function afterDeviceChange(queryClient: QueryClient, deviceId: string): Promise<void> {
  return invalidateDeviceCommands(queryClient, [deviceId]);
}
