import { z } from 'zod';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema } from './ids.ts';
import { PowerControlSchema } from './power-control.ts';
import { UtcTimestampSchema } from './time.ts';
import { endAfterStart } from './time-window.ts';

/** Command states (docs/upstream.md, Lifecycle). `received` is also called pending. */
export const COMMAND_STATUSES = ['received', 'executing', 'completed', 'cancelled'] as const;
export const CommandStatusSchema = z.enum(COMMAND_STATUSES);
export type CommandStatus = z.infer<typeof CommandStatusSchema>;

/** Cancellation reasons (docs/upstream.md, Status record). */
export const CANCELLATION_REASONS = [
  'manuallyCancel',
  'timeWindowOverlap',
  'startTimeExpire',
  'deviceFault',
  'notSupported',
] as const;
export const CancellationReasonSchema = z.enum(CANCELLATION_REASONS);
export type CancellationReason = z.infer<typeof CancellationReasonSchema>;

/** A final status never changes again (docs/upstream.md, Lifecycle). */
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

/** Cancel is allowed while received or executing (docs/upstream.md, Commands). */
export const isCancellable = isActiveStatus;

/**
 * Whether a command's window may still be changed: only while `received` (once executing, the
 * command is effective on the device). A change is a cancel followed by a new submission
 * (docs/upstream.md, Lifecycle), so the old command must not have started.
 */
export function isEditableStatus(status: CommandStatus): boolean {
  return status === 'received';
}

/**
 * A device command (docs/upstream.md, Commands): a power control effective in
 * `[startTime, endTime)`, both ISO 8601 UTC. End must be after start. Unknown fields are refused.
 */
export const DeviceCommandSchema = z
  .strictObject({
    powerControl: PowerControlSchema,
    startTime: UtcTimestampSchema,
    endTime: UtcTimestampSchema,
  })
  .refine(endAfterStart, { error: 'endTime must be after startTime', path: ['endTime'] });
export type DeviceCommand = z.infer<typeof DeviceCommandSchema>;

/** Answer of `POST /api/devices/{deviceId}/commands`, 202: the command the device received. */
export const SubmissionResponseSchema = z.object({
  id: CommandIdSchema,
  message: z.string(),
  timestamp: UtcTimestampSchema,
});
export type SubmissionResponse = z.infer<typeof SubmissionResponseSchema>;

/**
 * A device command's status record (docs/upstream.md, Status record). The timestamps present are
 * those reached in the lifecycle; `cancelReason` exists only when cancelled. `batchCommandId`
 * names the batch it was sent in, when powerdeck knows it (the vendor's records do not say).
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

/**
 * Answer of `PUT /api/devices/{deviceId}/commands/{commandId}/cancel`: what the cancel did to the
 * command. The SPA writes it into the status record it holds.
 */
export const CommandCancellationSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  status: z.literal('cancelled'),
  cancelledAt: UtcTimestampSchema,
  cancelReason: z.literal('manuallyCancel'),
});
export type CommandCancellation = z.infer<typeof CommandCancellationSchema>;

/** `record` as a cancellation left it: cancelled by an operator at `cancelledAt`. */
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
