import { z } from 'zod';
import { DeviceCommandSchema } from './command.ts';
import { MAX_FLEET_DEVICE_IDS } from './fleet-job.ts';
import { DeviceIdSchema } from './ids.ts';
import { UtcTimestampSchema } from './time.ts';

/**
 * `POST /api/deliverable`: before a batch or a fleet job is sent, what its devices can deliver
 * for the window from a fresh snapshot of their latest samples, and which of them did not follow
 * their recent commands (docs/verification.md, Deliverable power before sending). The rules are
 * `fleetDeliverableOf` (fleet-power.ts) and `notFollowingFlagOf` (verdict.ts).
 */

/** Lines of each list in an answer; the counts hold the full numbers. */
export const DELIVERABLE_LIST_LIMIT = 500;

export const DeliverableRequestSchema = z.strictObject({
  /** The selection, each device once (a fleet job's limit). */
  deviceIds: z.array(DeviceIdSchema).min(1).max(MAX_FLEET_DEVICE_IDS),
  /**
   * The command as it would be sent. Without it, or without a target battery power other than
   * 0 W, nothing is read of the vendor: only the devices flagged are answered.
   */
  command: DeviceCommandSchema.optional(),
});
export type DeliverableRequest = z.infer<typeof DeliverableRequestSchema>;

export const CannotLastSchema = z.object({
  deviceId: DeviceIdSchema,
  /** How long its energy holds the requested power, ms. */
  lastsMs: z.number(),
  /** What it can hold for the whole window, signed like battery power (positive discharges), W. */
  deliverableW: z.number(),
  /** The most its power limit and its site limit let it give now, signed like the request, W. */
  capW: z.number(),
  limitedBy: z.enum(['stateOfCharge', 'powerLimit', 'siteLimit']),
});
export type CannotLast = z.infer<typeof CannotLastSchema>;

/**
 * Why a device adds nothing to the deliverable power: its calls are kept for changes until
 * `readableAt` (`budget`), it gave no recent sample (`silent`, offline or not sampling), or its
 * capacity or power rating is unknown (`unrated`).
 */
export const NOT_MEASURED_REASONS = ['budget', 'silent', 'unrated'] as const;
export const NotMeasuredSchema = z.object({
  deviceId: DeviceIdSchema,
  reason: z.enum(NOT_MEASURED_REASONS),
  /** Its latest sample, when it gave one. */
  sampledAt: UtcTimestampSchema.optional(),
  /** When its budget has a call for a read again (`budget`). */
  readableAt: UtcTimestampSchema.optional(),
});
export type NotMeasured = z.infer<typeof NotMeasuredSchema>;

export const NotFollowingFlagSchema = z.object({
  deviceId: DeviceIdSchema,
  /** Of its last `of` verdicts, those `notFollowing`. */
  notFollowing: z.int(),
  of: z.int(),
});
export type NotFollowingFlag = z.infer<typeof NotFollowingFlagSchema>;

export const DeliverableAnswerSchema = z.object({
  /** The upstream's clock when the snapshot was taken. */
  takenAt: UtcTimestampSchema,
  /** Devices asked about, each once. */
  devices: z.int(),
  /** Absent when the command sets no target battery power (nothing was read). */
  power: z
    .object({
      /** Each device's target, signed like battery power, W. */
      requestedW: z.number(),
      /** The window's length, ms. */
      durationMs: z.int(),
      /** The target times the devices in bound sites, W. */
      commandedW: z.number(),
      /** What the measured devices can hold together for the whole window, W. */
      deliverableW: z.number(),
      measured: z.int(),
      /** Shortest first, at most {@link DELIVERABLE_LIST_LIMIT}. */
      cannotLast: z.array(CannotLastSchema),
      cannotLastCount: z.int(),
      /** At most {@link DELIVERABLE_LIST_LIMIT}. */
      notMeasured: z.array(NotMeasuredSchema),
      notMeasuredCount: z.int(),
    })
    .optional(),
  /** The vendor reads of this snapshot: `latestData/query` calls, each of at most 100 devices. */
  snapshot: z.object({
    calls: z.int(),
    /** Devices read now; the others' samples were read a few minutes ago at most. */
    read: z.int(),
    /** Devices left unread, their calls kept for changes. */
    deferred: z.int(),
    /** When the last of those can be read, on the upstream's clock. */
    readableAt: UtcTimestampSchema.optional(),
  }),
  /** Devices that did not follow in 2 of their last 3 commands (`notFollowingFlagOf`). */
  notFollowing: z.array(NotFollowingFlagSchema),
  /** Devices not in a bound site: neither read nor counted. */
  unknown: z.array(DeviceIdSchema),
});
export type DeliverableAnswer = z.infer<typeof DeliverableAnswerSchema>;
