import { z } from 'zod';
import { CancellationReasonSchema, CommandStatusSchema, DeviceCommandSchema } from './command.ts';
import { FleetProgressSchema } from './fleet-job.ts';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema, SiteIdSchema } from './ids.ts';
import { PowerControlSchema } from './power-control.ts';
import { UtcTimestampSchema } from './time.ts';
import { RegionSchema } from './token.ts';

/**
 * The answer of `GET /api/overview` (docs/architecture.md, Overview), as the BFF sends it and the
 * browser parses it; the rules that build it are in `overview.ts`, which also exports these.
 */

/** Query of `GET /api/overview`: the region (the signed-in one; another is refused). */
export const OverviewQuerySchema = z.strictObject({ region: RegionSchema.optional() });
export type OverviewQuery = z.infer<typeof OverviewQuerySchema>;

/** Where a line's device lives, for its link and its clock. */
const PlaceSchema = z.object({
  deviceId: DeviceIdSchema,
  deviceName: z.string().optional(),
  /** Absent when the device's site is not bound (any more). */
  siteId: SiteIdSchema.optional(),
  siteName: z.string().optional(),
  /** The site's zone (IANA name or fixed offset); absent: show UTC. */
  timeZone: z.string().optional(),
});

/**
 * One device command line. `status` absent: not read from the vendor since it was sent; the
 * section then follows from its window on the vendor's clock (`statusKnown` false).
 */
export const OverviewCommandSchema = PlaceSchema.extend({
  commandId: CommandIdSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  ledgerEntryId: z.string().optional(),
  powerControl: PowerControlSchema.optional(),
  startTime: UtcTimestampSchema.optional(),
  endTime: UtcTimestampSchema.optional(),
  status: CommandStatusSchema.optional(),
  cancelReason: CancellationReasonSchema.optional(),
  /** Why the vendor refused it, in operator words. */
  refusal: z.string().optional(),
  /** A batch's device command never found in the device's history after the window ended. */
  notFound: z.literal(true).optional(),
  endedAt: UtcTimestampSchema.optional(),
});
export type OverviewCommand = z.infer<typeof OverviewCommandSchema>;

/** A batch under way: its window and its devices' counts. */
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

/** A fleet job under way: its state, window and progress counts. */
export const OverviewFleetJobSchema = z.object({
  jobId: z.uuid(),
  state: z.enum(['running', 'paused', 'cancelling']),
  command: DeviceCommandSchema,
  createdAt: UtcTimestampSchema,
  operatorName: z.string().optional(),
  progress: FleetProgressSchema,
});
export type OverviewFleetJob = z.infer<typeof OverviewFleetJobSchema>;

/** A site or device the vendor last said is offline or faulted. */
export const OverviewTroubleSchema = z.object({
  siteId: SiteIdSchema,
  siteName: z.string(),
  timeZone: z.string(),
  /** Absent: the site itself. */
  deviceId: DeviceIdSchema.optional(),
  deviceName: z.string().optional(),
  offline: z.boolean(),
  faulted: z.boolean(),
});
export type OverviewTrouble = z.infer<typeof OverviewTroubleSchema>;

/** Body of `GET /api/overview`. Each list holds at most {@link OVERVIEW_SECTION_LIMIT} lines. */
export const OverviewSchema = z.object({
  region: RegionSchema,
  /** The vendor's clock when it was made, UTC. */
  generatedAt: UtcTimestampSchema,
  upcomingHours: z.number(),
  recentHours: z.number(),
  executing: z.array(OverviewCommandSchema),
  upcoming: z.array(OverviewCommandSchema),
  /** Ended lately against the operators' will, newest first ({@link needsAttention}). */
  attention: z.array(OverviewCommandSchema),
  /** Cancelled lately by an operator on purpose (cancel, undo, replace, abort), newest first. */
  cancelledByOperator: z.array(OverviewCommandSchema),
  batches: z.array(OverviewBatchSchema),
  fleetJobs: z.array(OverviewFleetJobSchema),
  trouble: z.array(OverviewTroubleSchema),
  /** Full number of lines of each section, before the limit. */
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
