import { z } from 'zod';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema, SiteIdSchema } from './ids.ts';
import { UtcTimestampSchema } from './time.ts';

/**
 * The notification inbox (docs/architecture.md, Live updates): what happened to a person's
 * changes that they did not see happen, kept per person of an account. Who receives which
 * notification is decided in the BFF (`src/server/notifications/notification-rules.ts`).
 */

/** The device command cancellations a person is told about: the ones nobody chose. */
export const NOTIFIED_CANCELLATION_REASONS = [
  'deviceFault',
  'notSupported',
  'startTimeExpire',
] as const;
export const NotifiedCancellationReasonSchema = z.enum(NOTIFIED_CANCELLATION_REASONS);
export type NotifiedCancellationReason = z.infer<typeof NotifiedCancellationReasonSchema>;

/**
 * A change that waited for the device's next free upstream slot (docs/decisions/007, section 2:
 * the queue of changes; domain `queued-change.ts`): a submission, a cancel, a replace, an undo, a
 * batch or a batch cancel (those name their first device, and `deviceCount` how many).
 */
export const QueuedChangeSchema = z.enum([
  'submit',
  'cancel',
  'replace',
  'undo',
  'batch',
  'batchCancel',
]);
export type QueuedChange = z.infer<typeof QueuedChangeSchema>;

/**
 * Why a queued change was withdrawn before it was sent: its window began before the device had a
 * free slot, an operator withdrew it, or its site was unbound.
 */
export const WithdrawalReasonSchema = z.enum(['windowPassed', 'operator', 'siteUnbound']);
export type WithdrawalReason = z.infer<typeof WithdrawalReasonSchema>;

/**
 * Why a queued change that went ended without all its steps sent (domain `queued-change.ts`,
 * `QUEUED_CHANGE_FAILURES`): the vendor refused a step (`refused`), or a step could not be sent
 * after every try (`not_sent`).
 */
export const QueuedChangeFailedReasonSchema = z.enum(['refused', 'not_sent']);
export type QueuedChangeFailedReason = z.infer<typeof QueuedChangeFailedReasonSchema>;

const windowFields = {
  startTime: UtcTimestampSchema.optional(),
  endTime: UtcTimestampSchema.optional(),
};
/** The site of a device, and its IANA zone, when the caller knows them (link, clock). */
const siteFields = { siteId: SiteIdSchema.optional(), timeZone: z.string().max(64).optional() };

/**
 * What happened, per kind of notification, without who did it or who is told (the BFF adds
 * those). Counts are of devices; times are UTC instants.
 */
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
    /** Why, in the operator's words: the vendor's refusal as the product words it. */
    detail: z.string().min(1).max(1000),
    ...siteFields,
    ...windowFields,
  }),
  z.strictObject({
    kind: z.literal('siteUnbound'),
    siteId: SiteIdSchema,
    siteName: z.string().max(200).optional(),
    /** Commands of its devices left waiting or executing on the vendor (absent: not counted). */
    waitingCommands: z.int().min(0).optional(),
  }),
]);
export type NotificationFacts = z.infer<typeof NotificationFactsSchema>;
export type NotificationKind = NotificationFacts['kind'];

/** The kinds of notification. */
export const NOTIFICATION_KINDS = NotificationFactsSchema.options.map(
  (option) => option.shape.kind.value,
) as readonly NotificationKind[];

/**
 * One notification as `GET /api/notifications` answers it: its words, the in-app path of what it
 * concerns, the site's zone and the command's window when it has them (the browser shows times on
 * the site's clock with UTC), and when the reader read it.
 */
export const NotificationSchema = z.object({
  id: z.string(),
  kind: z.enum(NOTIFICATION_KINDS as [NotificationKind, ...NotificationKind[]]),
  title: z.string(),
  body: z.string(),
  /** A path in the app (`/batches/...`), never another origin. */
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

/** Most notifications one page answers. */
export const MAX_NOTIFICATION_PAGE = 100;

/** Query of `GET /api/notifications`: newest first, `limit` of them, older than `before`. */
export const NotificationQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_NOTIFICATION_PAGE).default(20),
  before: z
    .string()
    .regex(/^[1-9][0-9]{0,17}$/)
    .optional(),
});
export type NotificationQuery = z.infer<typeof NotificationQuerySchema>;

/** Body of `GET /api/notifications`: a page, the reader's unread count, the next page's cursor. */
export const NotificationPageSchema = z.object({
  notifications: z.array(NotificationSchema),
  unreadCount: z.int().min(0),
  /** Pass as `before` for the next (older) page; absent on the last page. */
  nextBefore: z.string().optional(),
});
export type NotificationPage = z.infer<typeof NotificationPageSchema>;

/**
 * Body of `POST /api/notifications/read`: some notifications by ID, or all of them up to and
 * including `throughId` (the newest the reader saw, so one that arrives meanwhile stays unread).
 */
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

/** Answer of `POST /api/notifications/read`: the reader's unread count afterwards. */
export const MarkNotificationsReadAnswerSchema = z.object({ unreadCount: z.int().min(0) });
export type MarkNotificationsReadAnswer = z.infer<typeof MarkNotificationsReadAnswerSchema>;
