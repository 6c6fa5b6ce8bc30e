import { and, asc, desc, eq, gte, inArray, lt, lte, sql } from 'drizzle-orm';
import type { Account } from '#domain/account.ts';
import {
  WebhookDisabledReasonSchema,
  WebhookEventTypeSchema,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
  type WebhookDisabledReason,
  type WebhookEndpoint,
} from '#domain/webhooks.ts';
import type { Database } from '#infra/database.ts';
import { ofAccount } from '../db/account-rows.ts';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../db/schema.ts';
import type { AttemptResult } from './webhook-sender.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A delivery claimed for an attempt, with its endpoint. */
export interface ClaimedDelivery {
  delivery: DeliveryRow;
  endpoint: EndpointRow;
}

/** One attempt as the worker writes it. */
export interface RecordedAttempt {
  id: string;
  atMs: number;
  result: AttemptResult;
  outcome: AttemptOutcome;
}

/** How an attempt leaves its delivery: another attempt at a time, or done. */
export type AttemptOutcome =
  { status: 'pending'; nextAttemptAtMs: number } | { status: 'succeeded' } | { status: 'failed' };

/**
 * The endpoints, deliveries and attempts of outgoing webhooks (docs/architecture.md, Webhooks).
 * Every read and change of an endpoint or its log names the account (`ofAccount`).
 */
export class WebhookStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async createEndpoint(row: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
    const [made] = await this.#db.insert(webhookEndpoints).values(row).returning();
    if (!made) throw new Error('the endpoint was not stored');
    return made;
  }

  async countEndpoints(account: Account): Promise<number> {
    const [row] = await this.#db
      .select({ count: sql<number>`count(*)::int` })
      .from(webhookEndpoints)
      .where(ofAccount(webhookEndpoints, account));
    return row?.count ?? 0;
  }

  async endpoints(account: Account): Promise<EndpointRow[]> {
    return this.#db
      .select()
      .from(webhookEndpoints)
      .where(ofAccount(webhookEndpoints, account))
      .orderBy(desc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  }

  async endpoint(account: Account, id: string): Promise<EndpointRow | undefined> {
    const [row] = await this.#db
      .select()
      .from(webhookEndpoints)
      .where(and(ofAccount(webhookEndpoints, account), eq(webhookEndpoints.id, id)));
    return row;
  }

  async updateEndpoint(
    account: Account,
    id: string,
    set: Partial<typeof webhookEndpoints.$inferInsert>,
  ): Promise<EndpointRow | undefined> {
    const [row] = await this.#db
      .update(webhookEndpoints)
      .set(set)
      .where(and(ofAccount(webhookEndpoints, account), eq(webhookEndpoints.id, id)))
      .returning();
    return row;
  }

  /** With its log. */
  async deleteEndpoint(account: Account, id: string): Promise<boolean> {
    const rows = await this.#db
      .delete(webhookEndpoints)
      .where(and(ofAccount(webhookEndpoints, account), eq(webhookEndpoints.id, id)))
      .returning({ id: webhookEndpoints.id });
    return rows.length === 1;
  }

  /**
   * Disables an endpoint and ends its waiting deliveries as failed (they are redelivered by hand
   * once it is enabled again). Only where still enabled. @returns the endpoint when this disabled it.
   */
  async disable(
    endpointId: string,
    reason: WebhookDisabledReason,
    nowMs: number,
  ): Promise<EndpointRow | undefined> {
    return this.#db.transaction(async (tx) => {
      const [row] = await tx
        .update(webhookEndpoints)
        .set({ enabled: false, disabledReason: reason, disabledAt: new Date(nowMs) })
        .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.enabled, true)))
        .returning();
      if (!row) return undefined;
      await tx
        .update(webhookDeliveries)
        .set({ status: 'failed', nextAttemptAt: null, leaseUntil: null })
        .where(
          and(
            eq(webhookDeliveries.endpointId, endpointId),
            eq(webhookDeliveries.status, 'pending'),
          ),
        );
      return row;
    });
  }

  /** Ends a waiting delivery as failed without an attempt (its endpoint was disabled). */
  async endDelivery(id: string): Promise<void> {
    await this.#db
      .update(webhookDeliveries)
      .set({ status: 'failed', nextAttemptAt: null, leaseUntil: null })
      .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, 'pending')));
  }

  /** Each endpoint's latest attempt. */
  async lastAttempts(endpointIds: readonly string[]): Promise<Map<string, WebhookAttemptRow>> {
    if (endpointIds.length === 0) return new Map();
    const result = await this.#db.execute(sql`
      select distinct on (d.endpoint_id) d.endpoint_id, a.at, a.status_code, a.error
      from bff.webhook_attempts a join bff.webhook_deliveries d on d.id = a.delivery_id
      where d.endpoint_id in (${sql.join(
        endpointIds.map((id) => sql`${id}`),
        sql`, `,
      )})
      order by d.endpoint_id, a.id desc`);
    const rows = (
      result as unknown as {
        rows: { endpoint_id: string; at: string | Date; status_code: number | null }[];
      }
    ).rows;
    return new Map(
      rows.map((row) => [
        row.endpoint_id,
        { atMs: new Date(row.at).getTime(), statusCode: row.status_code ?? undefined },
      ]),
    );
  }

  /**
   * Claims up to `limit` due deliveries: moves each one's next attempt to `leaseUntilMs`, so one
   * whose worker died is due again then, and another instance's check skips it meanwhile.
   */
  async claimDue(nowMs: number, leaseUntilMs: number, limit: number): Promise<string[]> {
    const result = await this.#db.execute(sql`
      update bff.webhook_deliveries set next_attempt_at = ${new Date(leaseUntilMs).toISOString()}::timestamptz,
        lease_until = ${new Date(leaseUntilMs).toISOString()}::timestamptz
      where id in (
        select id from bff.webhook_deliveries
        where status = 'pending' and next_attempt_at <= ${new Date(nowMs).toISOString()}::timestamptz
        order by next_attempt_at limit ${limit} for update skip locked)
      returning id`);
    return (result as unknown as { rows: { id: string }[] }).rows.map((row) => row.id);
  }

  /** The deliveries of `ids` whose claim of `leaseUntilMs` still holds, with their endpoints. */
  async claimed(ids: readonly string[], leaseUntilMs: number): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    return this.#db
      .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(
        and(
          inArray(webhookDeliveries.id, [...ids]),
          eq(webhookDeliveries.status, 'pending'),
          eq(webhookDeliveries.leaseUntil, new Date(leaseUntilMs)),
        ),
      );
  }

  /**
   * Writes attempts and what each leaves its delivery as, in one transaction of two statements
   * whatever their number (the worker writes them a few at a time, off the operators' path).
   */
  async recordAttempts(attempts: readonly RecordedAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.#db.transaction(async (tx) => {
      // A delivery whose endpoint was deleted meanwhile is gone: its attempt is not kept, and
      // the others of the batch are written all the same.
      const attemptRows = attempts.map(
        ({ id, atMs, result }) =>
          sql`(${id}::text, ${new Date(atMs).toISOString()}::timestamptz, ${result.statusCode ?? null}::integer, ${result.latencyMs}::integer, ${result.error ?? null}::text, ${result.responseExcerpt ?? null}::text)`,
      );
      await tx.execute(sql`
        insert into bff.webhook_attempts
          (delivery_id, at, status_code, latency_ms, error, response_excerpt)
        select v.* from (values ${sql.join(attemptRows, sql`, `)})
          as v(delivery_id, at, status_code, latency_ms, error, response_excerpt)
        where exists (select 1 from bff.webhook_deliveries d where d.id = v.delivery_id)`);
      const rows = attempts.map(({ id, outcome }) => {
        const next =
          outcome.status === 'pending' ? new Date(outcome.nextAttemptAtMs).toISOString() : null;
        return sql`(${id}::text, ${outcome.status}::text, ${next}::timestamptz)`;
      });
      await tx.execute(sql`
        update bff.webhook_deliveries d set status = v.status,
          attempts_made = d.attempts_made + 1, next_attempt_at = v.next, lease_until = null
        from (values ${sql.join(rows, sql`, `)}) as v(id, status, next)
        where d.id = v.id`);
    });
  }

  /** Newest first, `limit` and whether there is more. */
  async deliveries(
    account: Account,
    endpointId: string,
    query: {
      status?: WebhookDeliveryStatus | undefined;
      before?: string | undefined;
      limit: number;
    },
  ): Promise<{ deliveries: WebhookDelivery[]; next: string | undefined }> {
    const before = query.before
      ? await this.#db
          .select({ seq: webhookDeliveries.seq })
          .from(webhookDeliveries)
          .where(
            and(
              eq(webhookDeliveries.id, query.before),
              eq(webhookDeliveries.endpointId, endpointId),
            ),
          )
      : undefined;
    const beforeSeq = before?.[0]?.seq;
    const rows = await this.#db
      .select({ delivery: webhookDeliveries })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(
        and(
          ofAccount(webhookEndpoints, account),
          eq(webhookDeliveries.endpointId, endpointId),
          query.status ? eq(webhookDeliveries.status, query.status) : undefined,
          beforeSeq !== undefined ? lt(webhookDeliveries.seq, beforeSeq) : undefined,
        ),
      )
      .orderBy(desc(webhookDeliveries.seq))
      .limit(query.limit + 1);
    const page = rows.slice(0, query.limit).map((row) => row.delivery);
    const attempts = await this.#attemptsOf(page.map((row) => row.id));
    return {
      deliveries: page.map((row) => deliveryOf(row, attempts.get(row.id) ?? [])),
      next: rows.length > query.limit ? page.at(-1)?.id : undefined,
    };
  }

  async delivery(
    account: Account,
    endpointId: string,
    id: string,
  ): Promise<WebhookDelivery | undefined> {
    const [row] = await this.#db
      .select({ delivery: webhookDeliveries })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(
        and(
          ofAccount(webhookEndpoints, account),
          eq(webhookDeliveries.endpointId, endpointId),
          eq(webhookDeliveries.id, id),
        ),
      );
    if (!row) return undefined;
    const attempts = await this.#attemptsOf([id]);
    return deliveryOf(row.delivery, attempts.get(id) ?? []);
  }

  /**
   * Queues deliveries of an endpoint again, due now, with a new round of the retry schedule and
   * the same `webhook-id`: one by ID (whatever its status), or every failed one made in a range.
   *
   * @returns how many were queued again.
   */
  async redeliver(
    endpointId: string,
    which: { id: string } | { fromMs: number; toMs: number },
    by: string,
    nowMs: number,
  ): Promise<number> {
    const rows = await this.#db
      .update(webhookDeliveries)
      .set({
        status: 'pending',
        attemptsMade: 0,
        nextAttemptAt: new Date(nowMs),
        leaseUntil: null,
        redeliveredAt: new Date(nowMs),
        redeliveredBy: by,
      })
      .where(
        and(
          eq(webhookDeliveries.endpointId, endpointId),
          'id' in which
            ? eq(webhookDeliveries.id, which.id)
            : and(
                eq(webhookDeliveries.status, 'failed'),
                gte(webhookDeliveries.createdAt, new Date(which.fromMs)),
                lte(webhookDeliveries.createdAt, new Date(which.toMs)),
              ),
        ),
      )
      .returning({ id: webhookDeliveries.id });
    return rows.length;
  }

  /** Deliveries made before `beforeMs`, with their attempts. */
  async prune(beforeMs: number): Promise<void> {
    await this.#db
      .delete(webhookDeliveries)
      .where(lt(webhookDeliveries.createdAt, new Date(beforeMs)));
  }

  async #attemptsOf(ids: readonly string[]): Promise<Map<string, WebhookAttempt[]>> {
    const byDelivery = new Map<string, WebhookAttempt[]>();
    if (ids.length === 0) return byDelivery;
    const rows = await this.#db
      .select()
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, [...ids]))
      .orderBy(asc(webhookAttempts.id));
    for (const row of rows) {
      const list = byDelivery.get(row.deliveryId) ?? [];
      list.push({
        at: row.at.toISOString(),
        ...(row.statusCode !== null ? { statusCode: row.statusCode } : {}),
        latencyMs: row.latencyMs,
        ...(row.error !== null ? { error: row.error } : {}),
        ...(row.responseExcerpt !== null ? { responseExcerpt: row.responseExcerpt } : {}),
      });
      byDelivery.set(row.deliveryId, list);
    }
    return byDelivery;
  }
}

export interface WebhookAttemptRow {
  atMs: number;
  statusCode: number | undefined;
}

function deliveryOf(row: DeliveryRow, attempts: WebhookAttempt[]): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: WebhookEventTypeSchema.parse(row.eventType),
    createdAt: row.createdAt.toISOString(),
    status: row.status as WebhookDeliveryStatus,
    ...(row.status === 'pending' && row.nextAttemptAt
      ? { nextAttemptAt: row.nextAttemptAt.toISOString() }
      : {}),
    ...(row.redeliveredAt ? { redeliveredAt: row.redeliveredAt.toISOString() } : {}),
    ...(row.redeliveredBy ? { redeliveredBy: row.redeliveredBy } : {}),
    attempts,
    payload: row.payload as Record<string, unknown>,
  };
}

/** An endpoint as listed: never its secret. */
export function endpointOf(
  row: EndpointRow,
  lastAttempt: WebhookAttemptRow | undefined,
  nowMs: number,
): WebhookEndpoint {
  const previousUntil = row.previousSecretUntil?.getTime();
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes.map((type) => WebhookEventTypeSchema.parse(type)),
    siteIds: row.siteIds,
    enabled: row.enabled,
    ...(row.disabledReason
      ? { disabledReason: WebhookDisabledReasonSchema.parse(row.disabledReason) }
      : {}),
    ...(row.disabledAt ? { disabledAt: row.disabledAt.toISOString() } : {}),
    createdAt: row.createdAt.toISOString(),
    madeBy: row.madeByName,
    ...(row.previousSecretCiphertext && previousUntil !== undefined && previousUntil > nowMs
      ? { previousSecretSignsUntil: new Date(previousUntil).toISOString() }
      : {}),
    ...(lastAttempt
      ? {
          lastAttempt: {
            at: new Date(lastAttempt.atMs).toISOString(),
            succeeded:
              lastAttempt.statusCode !== undefined &&
              lastAttempt.statusCode >= 200 &&
              lastAttempt.statusCode < 300,
            ...(lastAttempt.statusCode !== undefined ? { statusCode: lastAttempt.statusCode } : {}),
          },
        }
      : {}),
  };
}
