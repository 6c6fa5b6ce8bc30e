import { z } from 'zod';
import { DeviceIdSchema, SiteIdSchema } from './ids.ts';
import { LedgerKindSchema } from './ledger.ts';
import { QueuedChangeStateSchema } from './queued-change.ts';
import { UtcTimestampSchema } from './time.ts';

/**
 * Account events (docs/architecture.md, Live updates): what the BFF learnt about an account (a
 * region and client ID), pushed to every open browser of it over `GET /api/events`. An event says
 * what changed, not the new state: a browser refetches what it shows through the product API.
 */

/** Most devices one `deviceCommandsChanged` names; a larger change is published in parts. */
export const MAX_EVENT_DEVICE_IDS = 1000;

/**
 * An event ID: the decimal of a PostgreSQL `bigserial`, growing within an account; `0` is the
 * position before any event.
 */
export const AccountEventIdSchema = z.string().regex(/^(0|[1-9][0-9]{0,17})$/, {
  error: 'an event ID is a whole number',
});

/** A notification was made for the recipient (a person, or everyone of the account). */
export const NotificationCreatedSchema = z.object({
  type: z.literal('notificationCreated'),
  data: z.object({ notificationId: z.string() }),
});

/** A person read some of their notifications (`notificationIds`) or all of them. */
export const NotificationsReadSchema = z.object({
  type: z.literal('notificationsRead'),
  data: z.object({ notificationIds: z.array(z.string()).optional(), all: z.boolean().optional() }),
});

/** The device commands of these devices changed (a status, a new command, a cancellation). */
export const DeviceCommandsChangedSchema = z.object({
  type: z.literal('deviceCommandsChanged'),
  data: z.object({ deviceIds: z.array(DeviceIdSchema).min(1).max(MAX_EVENT_DEVICE_IDS) }),
});

/** Sites were bound or unbound (`siteIds` when known). */
export const SiteBindingsChangedSchema = z.object({
  type: z.literal('siteBindingsChanged'),
  data: z.object({ siteIds: z.array(SiteIdSchema).optional() }),
});

/** A ledger entry was written or settled. */
export const LedgerEntryChangedSchema = z.object({
  type: z.literal('ledgerEntryChanged'),
  data: z.object({ id: z.string(), kind: LedgerKindSchema }),
});

/** A fleet job moved on (a batch sent, its state changed). */
export const FleetJobChangedSchema = z.object({
  type: z.literal('fleetJobChanged'),
  data: z.object({ jobId: z.uuid() }),
});

/**
 * A queued change moved on (docs/decisions/007-device-call-budget.md, section 2): queued, planned
 * anew, a step sent, ended (`sent`, `failed`) or withdrawn. `deviceIds` are its devices, whose
 * commands change when a step is sent.
 */
export const QueuedChangeChangedSchema = z.object({
  type: z.literal('queuedChangeChanged'),
  data: z.object({
    changeId: z.string(),
    state: QueuedChangeStateSchema,
    deviceIds: z.array(DeviceIdSchema).max(MAX_EVENT_DEVICE_IDS),
  }),
});

/** Every kind of account event, told apart by `type`. */
export const AccountEventSchema = z.discriminatedUnion('type', [
  NotificationCreatedSchema,
  NotificationsReadSchema,
  DeviceCommandsChangedSchema,
  SiteBindingsChangedSchema,
  LedgerEntryChangedSchema,
  FleetJobChangedSchema,
  QueuedChangeChangedSchema,
]);
export type AccountEvent = z.infer<typeof AccountEventSchema>;
export type AccountEventType = AccountEvent['type'];
/** The data of the event of type `T`. */
export type AccountEventData<T extends AccountEventType> = Extract<
  AccountEvent,
  { type: T }
>['data'];

/** The event types, for tables keyed by type (the client's invalidation map). */
export const ACCOUNT_EVENT_TYPES = AccountEventSchema.options.map(
  (option) => option.shape.type.value,
) as readonly AccountEventType[];

/** An event as the stream delivers it: its ID (the SSE `id`) and when it was published. */
export type DeliveredEvent = AccountEvent & { id: string; createdAt: string };

/** The envelope every stream message has; the client looks `type` up before parsing `data`. */
export const PushEnvelopeSchema = z.object({
  type: z.string(),
  id: AccountEventIdSchema.optional(),
  data: z.unknown().optional(),
  createdAt: UtcTimestampSchema.optional(),
});
export type PushEnvelope = z.infer<typeof PushEnvelopeSchema>;

/**
 * The stream's own messages besides events. `ready`: the stream is live from event `id` on (sent
 * after the replay of what was missed). `resync`: events were missed that cannot be replayed
 * (older than the retention, or too many): refetch everything shown, then go on from `id`.
 * `sessionEnded`: the session ended (signed out, expired); the stream closes and must not be
 * opened again with this session.
 */
export const PUSH_CONTROL_TYPES = ['ready', 'resync', 'sessionEnded'] as const;
export type PushControlType = (typeof PUSH_CONTROL_TYPES)[number];
