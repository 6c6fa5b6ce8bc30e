import { z } from 'zod';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema } from './ids.ts';
import { PowerControlSchema } from './power-control.ts';
import { UtcTimestampSchema } from './time.ts';
import { endAfterStart } from './time-window.ts';

/** Command states (spec 3.1). `received` is also called pending. */
export const COMMAND_STATUSES = ['received', 'executing', 'completed', 'cancelled'] as const;
export const CommandStatusSchema = z.enum(COMMAND_STATUSES);
export type CommandStatus = z.infer<typeof CommandStatusSchema>;

/** Cancellation reasons (spec 3.2). */
export const CANCELLATION_REASONS = [
  'manuallyCancel',
  'timeWindowOverlap',
  'startTimeExpire',
  'deviceFault',
  'notSupported',
] as const;
export const CancellationReasonSchema = z.enum(CANCELLATION_REASONS);
export type CancellationReason = z.infer<typeof CancellationReasonSchema>;

/** A final status never changes again (spec 3.1). */
export function isFinalStatus(status: CommandStatus): boolean {
  return status === 'completed' || status === 'cancelled';
}

/**
 * Active commands block overlapping windows on the same device (docs/architecture.md, Upstream
 * contract: Lifecycle).
 */
export function isActiveStatus(status: CommandStatus): boolean {
  return status === 'received' || status === 'executing';
}

/** Cancel is allowed while received or executing (spec 4, "Cancel command"). */
export const isCancellable = isActiveStatus;

/**
 * Whether a command's window may still be changed: only while `received` (spec 3.1: once
 * executing, the command is effective on the device). A change is a cancel followed by a new
 * submission (spec 3.1 rule 2), so the old command must not have started.
 */
export function isEditableStatus(status: CommandStatus): boolean {
  return status === 'received';
}

/**
 * A device command (spec 2.1): a power control effective in `[startTime, endTime)`, both ISO 8601
 * UTC. End must be after start. Unknown fields are refused.
 */
export const DeviceCommandSchema = z
  .strictObject({
    powerControl: PowerControlSchema,
    startTime: UtcTimestampSchema,
    endTime: UtcTimestampSchema,
  })
  .refine(endAfterStart, { error: 'endTime must be after startTime', path: ['endTime'] });
export type DeviceCommand = z.infer<typeof DeviceCommandSchema>;

/** Response of `POST /device/{deviceId}/commands`, HTTP 202 (spec 2.3). */
export const SubmissionResponseSchema = z.object({
  id: CommandIdSchema,
  message: z.string(),
  timestamp: UtcTimestampSchema,
});
export type SubmissionResponse = z.infer<typeof SubmissionResponseSchema>;

/**
 * Command status record (spec 2.4; field names are our choice, docs/architecture.md, Upstream
 * contract: Status record). The timestamps present are those reached in the lifecycle;
 * `cancelReason` exists only when cancelled.
 */
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
