import { z } from 'zod';
import { SiteIdSchema } from './ids.ts';

/**
 * Outgoing webhooks (docs/automation.md, Webhooks): an endpoint of another system is told what the
 * BFF learns, in the Standard Webhooks form (https://www.standardwebhooks.com: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`, HMAC-SHA256), with thin payloads (IDs, the new state,
 * links to the product API). This module is the contract of the `/api/webhooks` routes and of the
 * payloads; the BFF's delivery lives in `src/server/webhooks/`.
 */

/** A secret as the Standard Webhooks libraries take it: `whsec_` and 24 to 64 random bytes in base64. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** How long the previous secret still signs beside the new one after a rotation. */
export const PREVIOUS_SECRET_SIGNS_FOR_MS = 24 * 60 * 60 * 1000;

/** How long a delivery and its attempts are kept in the log. */
export const DELIVERY_LOG_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

/** How many endpoints one account may have. */
export const MAX_WEBHOOK_ENDPOINTS = 100;

/** How many sites one endpoint may be limited to, as an API token. */
export const MAX_WEBHOOK_SITES = 100;

/** How much of an endpoint's answer the log keeps, in characters. */
export const RESPONSE_EXCERPT_CHARS = 500;

/**
 * The events an endpoint may subscribe to, as `webhook-type`-style dotted names:
 * - `deviceCommand.statusChanged`: a device command's status as the vendor answers it changed;
 * - `change.sent`, `change.refused`, `change.withdrawn`: a queued change (submit, cancel, batch)
 *   went to the vendor, was refused with a reason, or was withdrawn before it went;
 * - `batch.deviceFailed`: one device of a batch failed (each device succeeds or fails alone);
 * - `fleetJob.progressed`, `fleetJob.ended`: a fleet job sent a batch, or ended;
 * - `site.unbound`: a site binding ended;
 * - `device.budgetSpent`: a device's calls are spent until a time (decision 007);
 * - `deviceCommand.verdict`: a command's verdict for a device (docs/verification.md);
 * - `webhook.test`: sent only by "Send a test event".
 */
export const WEBHOOK_EVENT_TYPES = [
  'deviceCommand.statusChanged',
  'change.sent',
  'change.refused',
  'change.withdrawn',
  'batch.deviceFailed',
  'fleetJob.progressed',
  'fleetJob.ended',
  'site.unbound',
  'device.budgetSpent',
  'deviceCommand.verdict',
  'webhook.test',
] as const;
export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES, {
  error: `Choose events among ${WEBHOOK_EVENT_TYPES.join(', ')}`,
});
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

export const WebhookEndpointIdSchema = z.string().regex(/^ep_[0-9A-Za-z]{16,32}$/, {
  error: 'endpointId must be an endpoint ID such as ep_…',
});

/** The `webhook-id` of an event: the same on every delivery of it, so a receiver drops repeats. */
export const WebhookEventIdSchema = z.string().regex(/^msg_[0-9A-Za-z]{16,32}$/);

export const WebhookDeliveryIdSchema = z.string().regex(/^dlv_[0-9A-Za-z]{16,32}$/, {
  error: 'deliveryId must be a delivery ID such as dlv_…',
});

/** An HTTPS address (HTTP only where an administrator allowed private addresses, for a test). */
export const WebhookUrlSchema = z
  .url({ protocol: /^https?$/, error: 'Give the address the events go to, starting https://' })
  .max(2000, { error: 'The address is longer than 2000 characters' });

/** Body of `POST /api/webhooks`. */
export const WebhookEndpointRequestSchema = z.strictObject({
  url: WebhookUrlSchema,
  description: z.string().trim().max(200).optional(),
  eventTypes: z
    .array(WebhookEventTypeSchema)
    .min(1, { error: 'Choose at least one event' })
    .max(WEBHOOK_EVENT_TYPES.length),
  /** Absent or empty: every site of the account. */
  siteIds: z.array(SiteIdSchema).max(MAX_WEBHOOK_SITES).optional(),
});
export type WebhookEndpointRequest = z.infer<typeof WebhookEndpointRequestSchema>;

/** Body of `PATCH /api/webhooks/{endpointId}`: what is given changes; `enabled: true` re-enables. */
export const WebhookEndpointChangeSchema = WebhookEndpointRequestSchema.partial().extend({
  enabled: z.boolean().optional(),
});
export type WebhookEndpointChange = z.infer<typeof WebhookEndpointChangeSchema>;

/**
 * Why an endpoint receives nothing: its address answered 410 Gone, it failed every attempt for
 * the whole retry schedule (about three days), or an administrator turned it off.
 */
export const WebhookDisabledReasonSchema = z.enum(['gone', 'failing', 'byAdministrator']);
export type WebhookDisabledReason = z.infer<typeof WebhookDisabledReasonSchema>;

/** An endpoint as listed: never its secret. */
export const WebhookEndpointSchema = z.object({
  id: WebhookEndpointIdSchema,
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(WebhookEventTypeSchema),
  /** Empty: every site of the account. */
  siteIds: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: WebhookDisabledReasonSchema.optional(),
  disabledAt: z.iso.datetime().optional(),
  createdAt: z.iso.datetime(),
  /** Who made it, in words. */
  madeBy: z.string(),
  /** Until then the previous secret signs too (the header carries both signatures). */
  previousSecretSignsUntil: z.iso.datetime().optional(),
  /** The latest delivery attempt, if any. */
  lastAttempt: z
    .object({ at: z.iso.datetime(), succeeded: z.boolean(), statusCode: z.int().optional() })
    .optional(),
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookEndpointListSchema = z.object({ endpoints: z.array(WebhookEndpointSchema) });
export type WebhookEndpointList = z.infer<typeof WebhookEndpointListSchema>;

/** Answer of `POST /api/webhooks` and of a rotation: the only time the secret is answered. */
export const WebhookEndpointMadeSchema = z.object({
  endpoint: WebhookEndpointSchema,
  secret: z.string().startsWith(WEBHOOK_SECRET_PREFIX),
});
export type WebhookEndpointMade = z.infer<typeof WebhookEndpointMadeSchema>;

/** One attempt of a delivery: the endpoint's answer, or why there was none. */
export const WebhookAttemptSchema = z.object({
  at: z.iso.datetime(),
  /** Absent when no answer came (refused address, timeout, connection error). */
  statusCode: z.int().optional(),
  latencyMs: z.int().nonnegative(),
  /** In words: "timed out after 10 s", "the address is private", "redirects are not followed". */
  error: z.string().optional(),
  /** The first {@link RESPONSE_EXCERPT_CHARS} characters of the answer's body. */
  responseExcerpt: z.string().optional(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

/**
 * `pending`: not attempted yet, or waiting for its next attempt; `succeeded`: a 2xx; `failed`: the
 * retry schedule ran out, the endpoint is disabled, or it answered 410.
 */
export const WebhookDeliveryStatusSchema = z.enum(['pending', 'succeeded', 'failed']);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatusSchema>;

/** One event to one endpoint, with its attempts (newest last). */
export const WebhookDeliverySchema = z.object({
  id: WebhookDeliveryIdSchema,
  endpointId: WebhookEndpointIdSchema,
  eventId: WebhookEventIdSchema,
  eventType: WebhookEventTypeSchema,
  createdAt: z.iso.datetime(),
  status: WebhookDeliveryStatusSchema,
  nextAttemptAt: z.iso.datetime().optional(),
  /** When it was redelivered by hand, and by whom in words. */
  redeliveredAt: z.iso.datetime().optional(),
  redeliveredBy: z.string().optional(),
  attempts: z.array(WebhookAttemptSchema),
  /** The payload as sent (thin: IDs, the new state, links). */
  payload: z.record(z.string(), z.unknown()),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/** Query of `GET /api/webhooks/{endpointId}/deliveries`: newest first, a page at a time. */
export const WebhookDeliveryQuerySchema = z.strictObject({
  status: WebhookDeliveryStatusSchema.optional(),
  /** Only deliveries made before this one (the previous page's `next`). */
  before: WebhookDeliveryIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

export const WebhookDeliveryPageSchema = z.object({
  deliveries: z.array(WebhookDeliverySchema),
  /** Give as `before` for the next page; absent on the last. */
  next: WebhookDeliveryIdSchema.optional(),
});
export type WebhookDeliveryPage = z.infer<typeof WebhookDeliveryPageSchema>;

/** Body of `POST /api/webhooks/{endpointId}/redeliver`: every failed delivery made in the range. */
export const WebhookRedeliverRangeSchema = z
  .strictObject({ from: z.iso.datetime(), to: z.iso.datetime() })
  .refine((range) => Date.parse(range.from) < Date.parse(range.to), {
    error: 'The range must end after it starts',
    path: ['to'],
  });
export type WebhookRedeliverRange = z.infer<typeof WebhookRedeliverRangeSchema>;

/** Answer of a redelivery, one or a range: how many deliveries were queued again. */
export const WebhookRedeliveredSchema = z.object({ redelivered: z.int().nonnegative() });

/**
 * The body every delivery sends (Standard Webhooks' recommended shape): `type`, `timestamp` (when
 * the BFF learned it) and thin `data` with the IDs, the new state and `links` to the product API.
 */
export const WebhookPayloadSchema = z.object({
  type: WebhookEventTypeSchema,
  timestamp: z.iso.datetime(),
  data: z
    .object({
      region: z.string().optional(),
      siteId: z.string().optional(),
      deviceId: z.string().optional(),
      commandId: z.string().optional(),
      batchCommandId: z.string().optional(),
      jobId: z.string().optional(),
      changeId: z.string().optional(),
      /** The new state in the product API's words (a status, a verdict, "sent"…). */
      state: z.string().optional(),
      /** A reason in words, when there is one (a refusal, a cancellation reason). */
      reason: z.string().optional(),
      /** Product API paths of what changed, to read its whole state with a token. */
      links: z.record(z.string(), z.string()),
    })
    .loose(),
});
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;
