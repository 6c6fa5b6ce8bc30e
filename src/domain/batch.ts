import { z } from 'zod';
import {
  DeviceCommandSchema,
  CommandStatusSchema,
  CancellationReasonSchema,
  isFinalStatus,
  type CancellationReason,
  type CommandStatus,
} from './command.ts';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema } from './ids.ts';
import { UtcTimestampSchema } from './time.ts';
import { ErrorSummarySchema } from './errors.ts';

/**
 * Most devices in one batch: 50, as the product card and the specification say (the vendor
 * accepts 100; docs/upstream.md, Batches).
 */
export const MAX_BATCH_DEVICES = 50;

/** Body of `POST /api/batches`: 1 to 50 distinct devices, one device command for all. */
export const BatchRequestSchema = z.strictObject({
  devices: z
    .array(DeviceIdSchema)
    .min(1, { error: 'devices must list at least one device' })
    .max(MAX_BATCH_DEVICES, {
      error: `devices may list at most ${MAX_BATCH_DEVICES} devices`,
    })
    .refine((ids) => new Set(ids).size === ids.length, {
      error: 'devices must not repeat a device',
    }),
  command: DeviceCommandSchema,
});
export type BatchRequest = z.infer<typeof BatchRequestSchema>;

/** One device command of a batch, found in the device's history. */
export const BatchCommandSchema = z.object({ deviceId: DeviceIdSchema, id: CommandIdSchema });
export type BatchCommand = z.infer<typeof BatchCommandSchema>;

/**
 * Where finding a batch's device commands stands (docs/architecture.md, Ledger: batches): the
 * vendor's answer names no command, so the BFF finds each device's command in its history.
 * `confirming`: some are not found yet; `confirmed`: every device's is found; `incomplete`: the
 * window has ended with some never found.
 */
export const BATCH_CONFIRMATIONS = ['confirming', 'confirmed', 'incomplete'] as const;
export const BatchConfirmationSchema = z.enum(BATCH_CONFIRMATIONS);
export type BatchConfirmation = z.infer<typeof BatchConfirmationSchema>;

/**
 * A device of a batch whose command is not found: `confirming` ("not confirmed yet": its history
 * is read again), `notFound` (the window has ended and its history holds no such command).
 */
export const UnconfirmedDeviceSchema = z.object({
  deviceId: DeviceIdSchema,
  state: z.enum(['confirming', 'notFound']),
});
export type UnconfirmedDevice = z.infer<typeof UnconfirmedDeviceSchema>;

/**
 * A device of a batch whose site was unbound since: powerdeck reads the device no more, so the
 * batch follows it no more and counts it as final. `lastStatus` (with `lastCancelReason` when
 * cancelled) is its command's status when it was last read; absent: its command was never found
 * in its history. A last status that is final is how its command ended before the unbind (a final
 * status never changes, docs/upstream.md, Lifecycle): the batch shows it so. Any other is "Site
 * unbound: no longer followed": its command may still run on the vendor. docs/architecture.md,
 * Ledger: batches.
 */
export const UnboundDeviceSchema = z.object({
  deviceId: DeviceIdSchema,
  lastStatus: CommandStatusSchema.optional(),
  lastCancelReason: CancellationReasonSchema.optional(),
});
export type UnboundDevice = z.infer<typeof UnboundDeviceSchema>;

/**
 * True when the device's command ended (completed or cancelled) before its site was unbound: the
 * batch keeps that outcome; otherwise the device is no longer followed.
 */
export const endedBeforeUnbind = (device: UnboundDevice): boolean =>
  device.lastStatus !== undefined && isFinalStatus(device.lastStatus);

/**
 * The devices of a batch whose site is unbound, each of `deviceIds` (in the order sent) in
 * `unbound`, with its command's last read status (and cancellation reason). Every one is in:
 * one whose command was final before the unbind keeps that outcome ({@link endedBeforeUnbind}),
 * the others end as no longer followed; none is read again (the BFF answers nothing of an unbound
 * site's devices, docs/security.md, Unbinding).
 *
 * @param lastOf the device's batch command's last read status and cancellation reason;
 *   undefined when its command was never found.
 */
export function unboundBatchDevices(
  deviceIds: readonly string[],
  unbound: ReadonlySet<string>,
  lastOf: (
    deviceId: string,
  ) => { status: CommandStatus; cancelReason?: CancellationReason | undefined } | undefined,
): UnboundDevice[] {
  return deviceIds.flatMap((deviceId) => {
    if (!unbound.has(deviceId)) return [];
    const last = lastOf(deviceId);
    return [
      {
        deviceId,
        ...(last ? { lastStatus: last.status } : {}),
        ...(last?.status === 'cancelled' && last.cancelReason
          ? { lastCancelReason: last.cancelReason }
          : {}),
      },
    ];
  });
}

/**
 * Answer of `POST /api/batches`, 202 (docs/decisions/006, sections 4 and 5): the device commands
 * found so far and the devices whose command is not confirmed yet. `batchCommandId` is absent
 * for a batch whose first answer was lost and which was found in the histories afterwards (it is
 * cancelled device by device).
 */
export const BatchSubmissionResponseSchema = z.object({
  batchCommandId: BatchCommandIdSchema.optional(),
  timestamp: UtcTimestampSchema,
  confirmation: BatchConfirmationSchema,
  commands: z.array(BatchCommandSchema),
  unconfirmed: z.array(UnconfirmedDeviceSchema),
});
export type BatchSubmissionResponse = z.infer<typeof BatchSubmissionResponseSchema>;

/**
 * One device's outcome of a batch cancel. `commandId` and `status` (the command's status after
 * the attempt) are there when known; `error` says why a device's command was not cancelled.
 */
export const BatchCancelResultSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema.optional(),
  success: z.boolean(),
  status: CommandStatusSchema.optional(),
  error: ErrorSummarySchema.optional(),
});
export type BatchCancelResult = z.infer<typeof BatchCancelResultSchema>;

/** Answer of `PUT /api/batches/{batchCommandId}/cancel`: one result per device. */
export const BatchCancelResponseSchema = z.object({
  batchCommandId: BatchCommandIdSchema,
  results: z.array(BatchCancelResultSchema),
});
export type BatchCancelResponse = z.infer<typeof BatchCancelResponseSchema>;
