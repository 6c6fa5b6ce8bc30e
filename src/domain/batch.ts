import { z } from 'zod';
import { DeviceCommandSchema, CommandStatusSchema } from './command.ts';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema } from './ids.ts';
import { UtcTimestampSchema } from './time.ts';
import { ApiErrorBodySchema } from './errors.ts';

/** Most devices in one batch command (spec 2.5, 8). */
export const MAX_BATCH_DEVICES = 50;

/** Body of `POST /devices/commands/batch` (spec 2.5): 1 to 50 distinct devices, one command. */
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

/** 202 response of a batch submission (docs/architecture.md, Upstream contract: Batch). */
export const BatchSubmissionResponseSchema = z.object({
  batchCommandId: BatchCommandIdSchema,
  message: z.string(),
  timestamp: UtcTimestampSchema,
  commands: z.array(z.object({ deviceId: DeviceIdSchema, id: CommandIdSchema })),
});
export type BatchSubmissionResponse = z.infer<typeof BatchSubmissionResponseSchema>;

/** One device's outcome of a batch cancel; `status` is the command's status after the attempt. */
export const BatchCancelResultSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  success: z.boolean(),
  status: CommandStatusSchema,
  error: ApiErrorBodySchema.optional(),
});
export type BatchCancelResult = z.infer<typeof BatchCancelResultSchema>;

/**
 * Response of `PUT /devices/commands/batch/{batchCommandId}/cancel` (docs/architecture.md, Upstream
 * contract).
 */
export const BatchCancelResponseSchema = z.object({
  batchCommandId: BatchCommandIdSchema,
  results: z.array(BatchCancelResultSchema),
});
export type BatchCancelResponse = z.infer<typeof BatchCancelResponseSchema>;
