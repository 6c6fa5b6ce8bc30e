import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Account } from '#domain/account.ts';
import type { WebhookEventType, WebhookPayload } from '#domain/webhooks.ts';
import type { Database } from '#infra/database.ts';
import type { Queryable } from '../events/event-store.ts';

/** An event as its source words it: the payload's `data` (its region is the account's). */
export interface WebhookEventInput {
  type: WebhookEventType;
  data: WebhookPayload['data'];
  /** Only this endpoint (a test event); default every subscribed one. */
  endpointId?: string | undefined;
}

/** A `msg_` ID: 24 base62 characters from 18 random bytes (base64url without `-` and `_`). */
export function newWebhookEventId(): string {
  return `msg_${randomId(24)}`;
}

/** A random ID of `length` characters of [0-9A-Za-z]. */
export function randomId(length: number): string {
  let id = '';
  while (id.length < length) id += randomBytes(length).toString('base64url').replace(/[-_]/g, '');
  return id.slice(0, length);
}

/**
 * The outbox of outgoing webhooks (docs/architecture.md, Webhooks): an event the BFF learns is
 * written as one delivery per subscribed, enabled endpoint of the account whose event types and
 * sites match, in one statement, in the transaction where the BFF records what it learned, so it
 * is delivered if and only if that commits. An endpoint limited to sites gets only events that
 * name one of its sites. Every delivery of the event carries the same `webhook-id` (`msg_…`).
 */
export class WebhookOutbox {
  readonly #db: Database;
  readonly #now: () => number;
  readonly #written: (() => void)[] = [];

  /** @param now the webhooks' clock (epoch ms): when deliveries are due and made. */
  constructor(db: Database, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  /** Called after an event is written (the delivery queue looks for due deliveries sooner). */
  onWritten(listener: () => void): void {
    this.#written.push(listener);
  }

  /**
   * Writes the event's deliveries within `tx` (or alone); none when no endpoint subscribes.
   *
   * @returns how many deliveries were written.
   * @throws when the database refuses the write (the caller's transaction fails with it).
   */
  async record(
    account: Account,
    event: WebhookEventInput,
    options: { tx?: Queryable | undefined } = {},
  ): Promise<number> {
    const nowMs = this.#now();
    const payload: WebhookPayload = {
      type: event.type,
      timestamp: new Date(nowMs).toISOString(),
      data: { ...event.data, region: account.region },
    };
    const siteId = event.data.siteId ?? null;
    const at = new Date(nowMs).toISOString();
    const db = options.tx ?? this.#db;
    const result = await db.execute(sql`
      insert into bff.webhook_deliveries
        (id, endpoint_id, event_id, event_type, payload, status, next_attempt_at, created_at)
      select 'dlv_' || replace(gen_random_uuid()::text, '-', ''), e.id, ${newWebhookEventId()},
        ${event.type}, ${JSON.stringify(payload)}::jsonb, 'pending', ${at}::timestamptz,
        ${at}::timestamptz
      from bff.webhook_endpoints e
      where e.region = ${account.region} and e.client_id = ${account.clientId} and e.enabled
        and ${
          event.endpointId === undefined
            ? sql`e.event_types ? ${event.type}`
            : sql`e.id = ${event.endpointId}`
        }
        and (jsonb_array_length(e.site_ids) = 0 or e.site_ids ? ${siteId})
      returning id`);
    const count = (result as unknown as { rows: unknown[] }).rows.length;
    if (count > 0) for (const listener of this.#written) listener();
    return count;
  }
}
