import { z } from 'zod';
import { DeviceIdSchema, SiteIdSchema } from './ids.ts';
import { LedgerKindSchema } from './ledger.ts';
import { QueuedChangeStateSchema } from './queued-change.ts';
import { DeviceVersionSchema } from './read-model.ts';
import { UtcTimestampSchema } from './time.ts';

/**
 * Account events (docs/architecture.md, Live updates) say what changed, not the new state: a
 * browser refetches what it shows through the product API.
 */

/** A larger change is published in parts. */
export const MAX_EVENT_DEVICE_IDS = 1000;

/** The decimal of a PostgreSQL `bigserial`; `0` is the position before any event. */
export const AccountEventIdSchema = z.string().regex(/^(0|[1-9][0-9]{0,17})$/, {
  error: 'an event ID is a whole number',
});

/** For the recipient: a person, or everyone of the account. */
export const NotificationCreatedSchema = z.object({
  type: z.literal('notificationCreated'),
  data: z.object({ notificationId: z.string() }),
});

/** Some (`notificationIds`) or all of them. */
export const NotificationsReadSchema = z.object({
  type: z.literal('notificationsRead'),
  data: z.object({ notificationIds: z.array(z.string()).optional(), all: z.boolean().optional() }),
});

/** With each device's version, so a page knows someone changed it, not only its lifecycle. */
export const DeviceCommandsChangedSchema = z.object({
  type: z.literal('deviceCommandsChanged'),
  data: z.object({
    deviceIds: z.array(DeviceIdSchema).min(1).max(MAX_EVENT_DEVICE_IDS),
    versions: z.record(DeviceIdSchema, DeviceVersionSchema).optional(),
  }),
});

/** A control turned out not to be supported (a command ended `notSupported`). */
export const DeviceCapabilitiesChangedSchema = z.object({
  type: z.literal('deviceCapabilitiesChanged'),
  data: z.object({ deviceIds: z.array(DeviceIdSchema).min(1).max(MAX_EVENT_DEVICE_IDS) }),
});

/**
 * A verdict of these devices was written or changed (docs/verification.md): their pages read
 * their verdicts again.
 */
export const DeviceVerdictsChangedSchema = z.object({
  type: z.literal('deviceVerdictsChanged'),
  data: z.object({ deviceIds: z.array(DeviceIdSchema).min(1).max(MAX_EVENT_DEVICE_IDS) }),
});

/** New latest samples of the account's devices were read (docs/verification.md, Fleet picture). */
export const FleetPictureChangedSchema = z.object({
  type: z.literal('fleetPictureChanged'),
  data: z.object({}),
});

export const SiteBindingsChangedSchema = z.object({
  type: z.literal('siteBindingsChanged'),
  data: z.object({ siteIds: z.array(SiteIdSchema).optional() }),
});

export const LedgerEntryChangedSchema = z.object({
  type: z.literal('ledgerEntryChanged'),
  data: z.object({ id: z.string(), kind: LedgerKindSchema }),
});

export const FleetJobChangedSchema = z.object({
  type: z.literal('fleetJobChanged'),
  data: z.object({ jobId: z.uuid() }),
});

/** docs/decisions/007-device-call-budget.md, section 2. */
export const QueuedChangeChangedSchema = z.object({
  type: z.literal('queuedChangeChanged'),
  data: z.object({
    changeId: z.string(),
    state: QueuedChangeStateSchema,
    deviceIds: z.array(DeviceIdSchema).max(MAX_EVENT_DEVICE_IDS),
  }),
});

export const AccountEventSchema = z.discriminatedUnion('type', [
  NotificationCreatedSchema,
  NotificationsReadSchema,
  DeviceCommandsChangedSchema,
  DeviceCapabilitiesChangedSchema,
  DeviceVerdictsChangedSchema,
  FleetPictureChangedSchema,
  SiteBindingsChangedSchema,
  LedgerEntryChangedSchema,
  FleetJobChangedSchema,
  QueuedChangeChangedSchema,
]);
export type AccountEvent = z.infer<typeof AccountEventSchema>;
export type AccountEventType = AccountEvent['type'];
export type AccountEventData<T extends AccountEventType> = Extract<
  AccountEvent,
  { type: T }
>['data'];

export const ACCOUNT_EVENT_TYPES = AccountEventSchema.options.map(
  (option) => option.shape.type.value,
) as readonly AccountEventType[];

/** `id` is the SSE `id`. */
export type DeliveredEvent = AccountEvent & { id: string; createdAt: string };

/** The client looks `type` up before parsing `data`. */
export const PushEnvelopeSchema = z.object({
  type: z.string(),
  id: AccountEventIdSchema.optional(),
  data: z.unknown().optional(),
  createdAt: UtcTimestampSchema.optional(),
});
export type PushEnvelope = z.infer<typeof PushEnvelopeSchema>;

/**
 * `ready`: live from `id` on, after the replay. `resync`: missed events cannot be replayed, so
 * refetch everything shown. `sessionEnded`: the stream closes; never reopen it with this session.
 */
export const PUSH_CONTROL_TYPES = ['ready', 'resync', 'sessionEnded'] as const;
export type PushControlType = (typeof PUSH_CONTROL_TYPES)[number];
