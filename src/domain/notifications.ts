import { z } from 'zod';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema, SiteIdSchema } from './ids.ts';
import { UtcTimestampSchema } from './time.ts';

/**
 * The inbox (docs/architecture.md, Live updates); who is told what is decided in
 * src/server/notifications/notification-rules.ts.
 */

/** The ones nobody chose. */
export const NOTIFIED_CANCELLATION_REASONS = [
  'deviceFault',
  'notSupported',
  'startTimeExpire',
] as const;
export const NotifiedCancellationReasonSchema = z.enum(NOTIFIED_CANCELLATION_REASONS);
export type NotifiedCancellationReason = z.infer<typeof NotifiedCancellationReasonSchema>;

/** Batches name their first device, and `deviceCount` how many (decision record 007, section 2). */
export const QueuedChangeSchema = z.enum([
  'submit',
  'cancel',
  'replace',
  'undo',
  'batch',
  'batchCancel',
]);
export type QueuedChange = z.infer<typeof QueuedChangeSchema>;

/** `windowPassed`: its window began before the device had a free slot. */
export const WithdrawalReasonSchema = z.enum(['windowPassed', 'operator', 'siteUnbound']);
export type WithdrawalReason = z.infer<typeof WithdrawalReasonSchema>;

/** As `QUEUED_CHANGE_FAILURES` (queued-change.ts). */
export const QueuedChangeFailedReasonSchema = z.enum(['refused', 'not_sent']);
export type QueuedChangeFailedReason = z.infer<typeof QueuedChangeFailedReasonSchema>;

const windowFields = {
  startTime: UtcTimestampSchema.optional(),
  endTime: UtcTimestampSchema.optional(),
};
const siteFields = { siteId: SiteIdSchema.optional(), timeZone: z.string().max(64).optional() };

/** Without who did it or who is told (the BFF adds those); counts of devices, times UTC. */
export const NotificationFactsSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('commandCancelled'),
    deviceId: DeviceIdSchema,
    commandId: CommandIdSchema,
    cancelReason: NotifiedCancellationReasonSchema,
    ...siteFields,
    ...windowFields,
  }),
  z.strictObject({
    kind: z.literal('batchDevicesFailed'),
    batchCommandId: BatchCommandIdSchema,
    failedDevices: z.int().min(1),
    totalDevices: z.int().min(1),
    ...siteFields,
  }),
  z.strictObject({
    kind: z.literal('fleetJobDevicesFailed'),
    jobId: z.uuid(),
    failedDevices: z.int().min(1),
    totalDevices: z.int().min(1),
  }),
  z.strictObject({
    kind: z.literal('queuedChangeSent'),
    change: QueuedChangeSchema,
    deviceId: DeviceIdSchema,
    deviceCount: z.int().min(1).optional(),
    commandId: CommandIdSchema.optional(),
    ...siteFields,
    ...windowFields,
  }),
  z.strictObject({
    kind: z.literal('queuedChangeWithdrawn'),
    change: QueuedChangeSchema,
    deviceId: DeviceIdSchema,
    deviceCount: z.int().min(1).optional(),
    reason: WithdrawalReasonSchema,
    ...siteFields,
    ...windowFields,
  }),
  z.strictObject({
    kind: z.literal('queuedChangeFailed'),
    change: QueuedChangeSchema,
    deviceId: DeviceIdSchema,
    deviceCount: z.int().min(1).optional(),
    failure: QueuedChangeFailedReasonSchema,
    detail: z.string().min(1).max(1000),
    ...siteFields,
    ...windowFields,
  }),
  z.strictObject({
    kind: z.literal('commandNotFollowed'),
    deviceId: DeviceIdSchema,
    commandId: CommandIdSchema,
    /** Of the commanded energy, what the battery gave, in whole percent (docs/verification.md). */
    deliveredPercent: z.int().min(0).max(1000).optional(),
    ...siteFields,
    ...windowFields,
  }),
  z.strictObject({
    kind: z.literal('deviceSilentInWindow'),
    deviceId: DeviceIdSchema,
    commandId: CommandIdSchema,
    /** Of the window's samples, those measured, in whole percent. */
    measuredPercent: z.int().min(0).max(100),
    ...siteFields,
    ...windowFields,
  }),
  z.strictObject({
    kind: z.literal('eventUnderDelivered'),
    /** The batch or the fleet job of the event; one of the two. */
    batchCommandId: BatchCommandIdSchema.optional(),
    jobId: z.uuid().optional(),
    deliveredPercent: z.int().min(0).max(1000),
    thresholdPercent: z.int().min(1).max(100),
    totalDevices: z.int().min(1),
    ...siteFields,
    ...windowFields,
  }),
  z.strictObject({
    kind: z.literal('siteUnbound'),
    siteId: SiteIdSchema,
    siteName: z.string().max(200).optional(),
    /** Absent: not counted. */
    waitingCommands: z.int().min(0).optional(),
  }),
  z.strictObject({
    kind: z.literal('webhookEndpointDisabled'),
    endpointId: z.string().max(64),
    url: z.string().max(2000),
    /** `gone`: it answered 410; `failing`: it failed every attempt for about three days. */
    reason: z.enum(['gone', 'failing']),
  }),
]);
export type NotificationFacts = z.infer<typeof NotificationFactsSchema>;
export type NotificationKind = NotificationFacts['kind'];

export const NOTIFICATION_KINDS = NotificationFactsSchema.options.map(
  (option) => option.shape.kind.value,
) as readonly NotificationKind[];

/** The browser shows times on the site's clock with UTC. */
export const NotificationSchema = z.object({
  id: z.string(),
  kind: z.enum(NOTIFICATION_KINDS as [NotificationKind, ...NotificationKind[]]),
  title: z.string(),
  body: z.string(),
  /** Never another origin. */
  link: z
    .string()
    .regex(/^\/(?!\/)/, { error: 'a link is a path in the app' })
    .optional(),
  timeZone: z.string().optional(),
  window: z.object({ startTime: UtcTimestampSchema, endTime: UtcTimestampSchema }).optional(),
  createdAt: UtcTimestampSchema,
  readAt: UtcTimestampSchema.optional(),
});
export type Notification = z.infer<typeof NotificationSchema>;

export const MAX_NOTIFICATION_PAGE = 100;

/** Query of `GET /api/notifications`: newest first, older than `before`. */
export const NotificationQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_NOTIFICATION_PAGE).default(20),
  before: z
    .string()
    .regex(/^[1-9][0-9]{0,17}$/)
    .optional(),
});
export type NotificationQuery = z.infer<typeof NotificationQuerySchema>;

/** Body of `GET /api/notifications`, with the reader's unread count. */
export const NotificationPageSchema = z.object({
  notifications: z.array(NotificationSchema),
  unreadCount: z.int().min(0),
  /** Absent on the last page. */
  nextBefore: z.string().optional(),
});
export type NotificationPage = z.infer<typeof NotificationPageSchema>;

/** `throughId`: the newest the reader saw, so one that arrives meanwhile stays unread. */
export const MarkNotificationsReadSchema = z.union([
  z.strictObject({
    ids: z
      .array(z.string().regex(/^[1-9][0-9]{0,17}$/))
      .min(1)
      .max(500),
  }),
  z.strictObject({
    all: z.literal(true),
    throughId: z
      .string()
      .regex(/^[1-9][0-9]{0,17}$/)
      .optional(),
  }),
]);
export type MarkNotificationsRead = z.infer<typeof MarkNotificationsReadSchema>;

export const MarkNotificationsReadAnswerSchema = z.object({ unreadCount: z.int().min(0) });
export type MarkNotificationsReadAnswer = z.infer<typeof MarkNotificationsReadAnswerSchema>;
