import { z } from 'zod';
import { CancellationReasonSchema, CommandStatusSchema, DeviceCommandSchema } from './command.ts';
import { FleetProgressSchema } from './fleet-job.ts';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema, SiteIdSchema } from './ids.ts';
import { PowerControlSchema } from './power-control.ts';
import { UtcTimestampSchema } from './time.ts';
import { RegionSchema } from './token.ts';

// The rules that build these are in overview.ts (docs/architecture.md, Overview).

/** Another region than the signed-in one is refused. */
export const OverviewQuerySchema = z.strictObject({ region: RegionSchema.optional() });
export type OverviewQuery = z.infer<typeof OverviewQuerySchema>;

const PlaceSchema = z.object({
  deviceId: DeviceIdSchema,
  deviceName: z.string().optional(),
  siteId: SiteIdSchema.optional(),
  siteName: z.string().optional(),
  /** IANA name or fixed offset; absent: show UTC. */
  timeZone: z.string().optional(),
});

/** `status` absent: not read since sent, so the section follows from its window. */
export const OverviewCommandSchema = PlaceSchema.extend({
  commandId: CommandIdSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  ledgerEntryId: z.string().optional(),
  powerControl: PowerControlSchema.optional(),
  startTime: UtcTimestampSchema.optional(),
  endTime: UtcTimestampSchema.optional(),
  status: CommandStatusSchema.optional(),
  cancelReason: CancellationReasonSchema.optional(),
  refusal: z.string().optional(),
  notFound: z.literal(true).optional(),
  endedAt: UtcTimestampSchema.optional(),
});
export type OverviewCommand = z.infer<typeof OverviewCommandSchema>;

export const OverviewBatchSchema = z.object({
  ledgerEntryId: z.string(),
  batchCommandId: BatchCommandIdSchema.optional(),
  siteId: SiteIdSchema.optional(),
  siteName: z.string().optional(),
  timeZone: z.string().optional(),
  startTime: UtcTimestampSchema,
  endTime: UtcTimestampSchema,
  powerControl: PowerControlSchema.optional(),
  devices: z.int(),
  found: z.int(),
  confirming: z.int(),
  notFound: z.int(),
});
export type OverviewBatch = z.infer<typeof OverviewBatchSchema>;

export const OverviewFleetJobSchema = z.object({
  jobId: z.uuid(),
  state: z.enum(['running', 'paused', 'cancelling']),
  command: DeviceCommandSchema,
  createdAt: UtcTimestampSchema,
  operatorName: z.string().optional(),
  progress: FleetProgressSchema,
});
export type OverviewFleetJob = z.infer<typeof OverviewFleetJobSchema>;

export const OverviewTroubleSchema = z.object({
  siteId: SiteIdSchema,
  siteName: z.string(),
  timeZone: z.string(),
  deviceId: DeviceIdSchema.optional(),
  deviceName: z.string().optional(),
  offline: z.boolean(),
  faulted: z.boolean(),
});
export type OverviewTrouble = z.infer<typeof OverviewTroubleSchema>;

/** Each list holds at most {@link OVERVIEW_SECTION_LIMIT} lines. */
export const OverviewSchema = z.object({
  region: RegionSchema,
  /** On the vendor's clock, UTC. */
  generatedAt: UtcTimestampSchema,
  upcomingHours: z.number(),
  recentHours: z.number(),
  executing: z.array(OverviewCommandSchema),
  upcoming: z.array(OverviewCommandSchema),
  /** Newest first ({@link needsAttention}). */
  attention: z.array(OverviewCommandSchema),
  /** Cancel, undo, replace, abort; newest first. */
  cancelledByOperator: z.array(OverviewCommandSchema),
  batches: z.array(OverviewBatchSchema),
  fleetJobs: z.array(OverviewFleetJobSchema),
  trouble: z.array(OverviewTroubleSchema),
  /** Before the limit. */
  counts: z.object({
    executing: z.int(),
    upcoming: z.int(),
    attention: z.int(),
    cancelledByOperator: z.int(),
    batches: z.int(),
    fleetJobs: z.int(),
    trouble: z.int(),
  }),
});
export type Overview = z.infer<typeof OverviewSchema>;
