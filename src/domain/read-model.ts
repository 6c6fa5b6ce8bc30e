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
 * The read model of device commands (docs/decisions/007-device-call-budget.md, sections 3 and 5;
 * docs/architecture.md, Read model): what the BFF learnt about each device's commands, kept in its
 * database, refreshed within the device's budget of upstream calls, and served to every browser.
 *
 * Each device has a **version**, a whole number that grows by one with each change a person or
 * the vendor made to its commands: a new command (sent through powerdeck, or seen by a read of
 * its history) and a cancellation (by an operator, or by the device: fault, not supported, start
 * expired, overlap). The lifecycle's own progress (received -> executing -> completed) is not a
 * change and leaves the version as it is: nobody decided anything a change made against the
 * older version would miss.
 */

/** A device's version: 0 before anything is known of it, then one more per change. */
export const DeviceVersionSchema = z.int().min(0);
export type DeviceVersion = z.infer<typeof DeviceVersionSchema>;

/** What changed a device's commands: a new command, or a cancellation. */
export const DEVICE_COMMAND_CHANGE_KINDS = ['commandAdded', 'commandCancelled'] as const;
export const DeviceCommandChangeKindSchema = z.enum(DEVICE_COMMAND_CHANGE_KINDS);
export type DeviceCommandChangeKind = z.infer<typeof DeviceCommandChangeKindSchema>;

/**
 * One change of a device's commands, and the version it made. `madeBy` names who made it in words
 * (the operator's display or typed name) when it went through powerdeck; a command or
 * cancellation made outside powerdeck, or by the device itself, has none. `cancelReason` says
 * who cancelled: `manuallyCancel` an operator, the others the device or the vendor.
 */
export const DeviceCommandChangeSchema = z.object({
  version: DeviceVersionSchema.min(1),
  kind: DeviceCommandChangeKindSchema,
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  /** The command's effective window, so a refusal can name it on the site's clock. */
  startTime: UtcTimestampSchema,
  endTime: UtcTimestampSchema,
  /** When it happened: the command's `receivedAt`, or its `cancelledAt`. */
  at: UtcTimestampSchema,
  cancelReason: CancellationReasonSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  madeBy: z.string().optional(),
});
export type DeviceCommandChange = z.infer<typeof DeviceCommandChangeSchema>;

/**
 * What changed on a device since version `sinceVersion`, oldest first, up to its `version` now.
 * Empty `changes` (and `version === sinceVersion`) when nothing did. Changes older than the read
 * model keeps (a week) are left out: `complete` is false when some may be missing.
 */
export const DeviceCommandChangesSchema = z.object({
  deviceId: DeviceIdSchema,
  sinceVersion: DeviceVersionSchema,
  version: DeviceVersionSchema,
  changes: z.array(DeviceCommandChangeSchema),
  complete: z.boolean(),
});
export type DeviceCommandChanges = z.infer<typeof DeviceCommandChangesSchema>;

/**
 * Where the read model stands for one device, as every answer about its commands carries it:
 * its `version`, when its history was last read from the vendor (`readAt`; absent before its
 * first read), and whether a read of older history the page asked for is still to come
 * (`olderHistoryPending`: the answer holds what is known; a push follows the read).
 */
export const DeviceReadStateSchema = z.object({
  version: DeviceVersionSchema,
  readAt: UtcTimestampSchema.optional(),
  olderHistoryPending: z.boolean().optional(),
});
export type DeviceReadState = z.infer<typeof DeviceReadStateSchema>;

/** A device's commands as the read model holds them, with where it stands. */
export const DeviceCommandsViewSchema = DeviceReadStateSchema.extend({
  deviceId: DeviceIdSchema,
  commands: z.array(StatusRecordSchema),
});
export type DeviceCommandsView = z.infer<typeof DeviceCommandsViewSchema>;

/**
 * The status record of a submission the vendor just accepted, known at once from the command and
 * the answer (decision 007, section 3): `received` at the answer's time, on the vendor's clock.
 */
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

/**
 * Whether going from `before` (undefined: not known before) to `after` is a change that bumps the
 * device's version: a command not known before, or one cancelled now. Lifecycle progress
 * (received -> executing -> completed), a record read again unchanged, and a timestamp filled in
 * are not.
 */
export function changeKindOf(
  before: Pick<StatusRecord, 'status'> | undefined,
  after: Pick<StatusRecord, 'status'>,
): DeviceCommandChangeKind | undefined {
  if (!before) return 'commandAdded';
  if (after.status === 'cancelled' && before.status !== 'cancelled') return 'commandCancelled';
  return undefined;
}
