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

/** The product card's and the spec's 50; the vendor accepts 100 (docs/upstream.md, Batches). */
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

export const BatchCommandSchema = z.object({ deviceId: DeviceIdSchema, id: CommandIdSchema });
export type BatchCommand = z.infer<typeof BatchCommandSchema>;

/**
 * The vendor's answer names no command, so the BFF finds each in the device's history
 * (docs/architecture.md, Ledger: batches); `incomplete`: the window ended with some never found.
 */
export const BATCH_CONFIRMATIONS = ['confirming', 'confirmed', 'incomplete'] as const;
export const BatchConfirmationSchema = z.enum(BATCH_CONFIRMATIONS);
export type BatchConfirmation = z.infer<typeof BatchConfirmationSchema>;

/** `notFound`: the window ended and its history holds no such command. */
export const UnconfirmedDeviceSchema = z.object({
  deviceId: DeviceIdSchema,
  state: z.enum(['confirming', 'notFound']),
});
export type UnconfirmedDevice = z.infer<typeof UnconfirmedDeviceSchema>;

/**
 * Its site was unbound since, so it is read no more and counts as final. `lastStatus` absent:
 * never found. A final last status is how it ended; any other is "no longer followed"
 * (docs/architecture.md, Ledger: batches).
 */
export const UnboundDeviceSchema = z.object({
  deviceId: DeviceIdSchema,
  lastStatus: CommandStatusSchema.optional(),
  lastCancelReason: CancellationReasonSchema.optional(),
});
export type UnboundDevice = z.infer<typeof UnboundDeviceSchema>;

/** Its command ended before the unbind: the batch keeps that outcome. */
export const endedBeforeUnbind = (device: UnboundDevice): boolean =>
  device.lastStatus !== undefined && isFinalStatus(device.lastStatus);

/**
 * Every one of `deviceIds`, in order; none is read again (docs/security.md, Unbinding).
 * @param lastOf undefined when the device's command was never found.
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
 * 202 (docs/decisions/006, sections 4 and 5). `batchCommandId` absent when the first answer was
 * lost and the batch was found in the histories (it is cancelled device by device).
 */
export const BatchSubmissionResponseSchema = z.object({
  batchCommandId: BatchCommandIdSchema.optional(),
  timestamp: UtcTimestampSchema,
  confirmation: BatchConfirmationSchema,
  commands: z.array(BatchCommandSchema),
  unconfirmed: z.array(UnconfirmedDeviceSchema),
});
export type BatchSubmissionResponse = z.infer<typeof BatchSubmissionResponseSchema>;

/** `commandId` and `status` when known; `error` says why it was not cancelled. */
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
