import { z } from 'zod';
import {
  CancellationReasonSchema,
  StatusRecordSchema,
  type DeviceCommand,
  type StatusRecord,
  type SubmissionResponse,
} from './command.ts';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema } from './ids.ts';
import { UtcTimestampSchema } from './time.ts';

/**
 * The read model of device commands (decision record 007, sections 3 and 5; docs/architecture.md,
 * Read model). A device's **version** grows by one per new command or cancellation; lifecycle
 * progress is no change, since nothing a change against the older version would miss.
 */

/** 0 before anything is known, then one more per change. */
export const DeviceVersionSchema = z.int().min(0);
export type DeviceVersion = z.infer<typeof DeviceVersionSchema>;

export const DEVICE_COMMAND_CHANGE_KINDS = ['commandAdded', 'commandCancelled'] as const;
export const DeviceCommandChangeKindSchema = z.enum(DEVICE_COMMAND_CHANGE_KINDS);
export type DeviceCommandChangeKind = z.infer<typeof DeviceCommandChangeKindSchema>;

/** `madeBy` only when made through powerdeck; `cancelReason` `manuallyCancel` is an operator. */
export const DeviceCommandChangeSchema = z.object({
  version: DeviceVersionSchema.min(1),
  kind: DeviceCommandChangeKindSchema,
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  /** So a refusal can name the window on the site's clock. */
  startTime: UtcTimestampSchema,
  endTime: UtcTimestampSchema,
  /** `receivedAt`, or `cancelledAt`. */
  at: UtcTimestampSchema,
  cancelReason: CancellationReasonSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  madeBy: z.string().optional(),
});
export type DeviceCommandChange = z.infer<typeof DeviceCommandChangeSchema>;

/** Oldest first; `complete` false when changes older than the week kept may be missing. */
export const DeviceCommandChangesSchema = z.object({
  deviceId: DeviceIdSchema,
  sinceVersion: DeviceVersionSchema,
  version: DeviceVersionSchema,
  changes: z.array(DeviceCommandChangeSchema),
  complete: z.boolean(),
});
export type DeviceCommandChanges = z.infer<typeof DeviceCommandChangesSchema>;

/** `readAt` on the vendor's clock; `historyPending`: a push follows the read still to come. */
export const DeviceReadStateSchema = z.object({
  version: DeviceVersionSchema,
  readAt: UtcTimestampSchema.optional(),
  historyPending: z.boolean().optional(),
});
export type DeviceReadState = z.infer<typeof DeviceReadStateSchema>;

/** `device` absent without a database. */
export const CommandStatusResponseSchema = StatusRecordSchema.extend({
  device: DeviceReadStateSchema.optional(),
});
export type CommandStatusResponse = z.infer<typeof CommandStatusResponseSchema>;

export const DeviceCommandsViewSchema = DeviceReadStateSchema.extend({
  deviceId: DeviceIdSchema,
  commands: z.array(StatusRecordSchema),
});
export type DeviceCommandsView = z.infer<typeof DeviceCommandsViewSchema>;

/** `received` at the answer's time, on the vendor's clock (decision 007, section 3). */
export function submittedRecord(
  deviceId: string,
  command: DeviceCommand,
  answer: Pick<SubmissionResponse, 'id' | 'timestamp'>,
  batchCommandId?: string,
): StatusRecord {
  return {
    id: answer.id,
    deviceId,
    ...(batchCommandId ? { batchCommandId } : {}),
    powerControl: command.powerControl,
    startTime: command.startTime,
    endTime: command.endTime,
    status: 'received',
    receivedAt: answer.timestamp,
  };
}

/** A command not known before, or cancelled now; lifecycle progress is not. */
export function changeKindOf(
  before: Pick<StatusRecord, 'status'> | undefined,
  after: Pick<StatusRecord, 'status'>,
): DeviceCommandChangeKind | undefined {
  if (!before) return 'commandAdded';
  if (after.status === 'cancelled' && before.status !== 'cancelled') return 'commandCancelled';
  return undefined;
}

const STATUS_RANK: Record<StatusRecord['status'], number> = {
  received: 0,
  executing: 1,
  completed: 2,
  cancelled: 2,
};

/**
 * A final record never changes (docs/upstream.md, Lifecycle); a status never goes back (a read sent
 * before a cancel was answered must not undo it); the batch, which the vendor omits, is kept.
 */
export function mergeStatusRecord(
  before: StatusRecord | undefined,
  learnt: StatusRecord,
): StatusRecord {
  if (!before) return learnt;
  const batchCommandId = before.batchCommandId ?? learnt.batchCommandId;
  const kept =
    before.status === 'completed' ||
    before.status === 'cancelled' ||
    STATUS_RANK[learnt.status] < STATUS_RANK[before.status];
  return { ...(kept ? before : learnt), ...(batchCommandId ? { batchCommandId } : {}) };
}
