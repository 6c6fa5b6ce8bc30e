import { z } from 'zod';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema } from './ids.ts';
import { PowerControlSchema } from './power-control.ts';
import { UtcTimestampSchema } from './time.ts';
import { endAfterStart } from './time-window.ts';

/** docs/upstream.md, Lifecycle. `received` is also called pending. */
export const COMMAND_STATUSES = ['received', 'executing', 'completed', 'cancelled'] as const;
export const CommandStatusSchema = z.enum(COMMAND_STATUSES);
export type CommandStatus = z.infer<typeof CommandStatusSchema>;

/** docs/upstream.md, Status record. */
export const CANCELLATION_REASONS = [
  'manuallyCancel',
  'timeWindowOverlap',
  'startTimeExpire',
  'deviceFault',
  'notSupported',
] as const;
export const CancellationReasonSchema = z.enum(CANCELLATION_REASONS);
export type CancellationReason = z.infer<typeof CancellationReasonSchema>;

/** docs/upstream.md, Lifecycle. */
export function isFinalStatus(status: CommandStatus): boolean {
  return status === 'completed' || status === 'cancelled';
}

/** Active commands block overlapping windows on the device (docs/upstream.md, Lifecycle). */
export function isActiveStatus(status: CommandStatus): boolean {
  return status === 'received' || status === 'executing';
}

/** docs/upstream.md, Commands. */
export const isCancellable = isActiveStatus;

/** Only while `received`: a change is a cancel, then a submission (docs/upstream.md, Lifecycle). */
export function isEditableStatus(status: CommandStatus): boolean {
  return status === 'received';
}

/** `[startTime, endTime)`, ISO 8601 UTC (docs/upstream.md, Commands). */
export const DeviceCommandSchema = z
  .strictObject({
    powerControl: PowerControlSchema,
    startTime: UtcTimestampSchema,
    endTime: UtcTimestampSchema,
  })
  .refine(endAfterStart, { error: 'endTime must be after startTime', path: ['endTime'] });
export type DeviceCommand = z.infer<typeof DeviceCommandSchema>;

/** Answer of `POST /api/devices/{deviceId}/commands`, 202. */
export const SubmissionResponseSchema = z.object({
  id: CommandIdSchema,
  message: z.string(),
  timestamp: UtcTimestampSchema,
});
export type SubmissionResponse = z.infer<typeof SubmissionResponseSchema>;

/** docs/upstream.md, Status record; `batchCommandId` when known (the vendor omits it). */
export const StatusRecordSchema = z.object({
  id: CommandIdSchema,
  deviceId: DeviceIdSchema,
  batchCommandId: BatchCommandIdSchema.optional(),
  powerControl: PowerControlSchema,
  startTime: UtcTimestampSchema,
  endTime: UtcTimestampSchema,
  status: CommandStatusSchema,
  receivedAt: UtcTimestampSchema,
  startedAt: UtcTimestampSchema.optional(),
  completedAt: UtcTimestampSchema.optional(),
  cancelledAt: UtcTimestampSchema.optional(),
  cancelReason: CancellationReasonSchema.optional(),
});
export type StatusRecord = z.infer<typeof StatusRecordSchema>;

/** Answer of a cancel; the SPA writes it into the status record it holds. */
export const CommandCancellationSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  status: z.literal('cancelled'),
  cancelledAt: UtcTimestampSchema,
  cancelReason: z.literal('manuallyCancel'),
});
export type CommandCancellation = z.infer<typeof CommandCancellationSchema>;

/** `record` cancelled by an operator at `cancelledAt`. */
export function applyCancellation(
  record: StatusRecord,
  cancellation: CommandCancellation,
): StatusRecord {
  return {
    ...record,
    status: 'cancelled',
    cancelledAt: cancellation.cancelledAt,
    cancelReason: cancellation.cancelReason,
  };
}
