import { and, asc, eq, gt, isNull, lt, max, min, or, sql } from 'drizzle-orm';
import { AccountEventSchema, type AccountEvent } from '#domain/account-events.ts';
import { RegionSchema } from '#domain/token.ts';
import type { Database } from '#infra/database.ts';
import { accountEvents } from '../db/schema.ts';
import { ofAccount } from '../db/account-rows.ts';
import { accountKey, type Account } from '#domain/account.ts';

/** A browser away longer is told to refetch instead; a day covers a shift and a night. */
export const EVENT_RETENTION_MS = 24 * 60 * 60 * 1000;

export const EVENT_CHANNEL = 'powerdeck_events';

/** "powd"; PostgreSQL keeps the one- and two-key lock spaces apart from migrations' and pg-boss's. */
const EVENT_LOCK_CLASS = 0x706f7764;

/** NOTIFY payloads are at most 8000 bytes; a larger event is announced by ID and read. */
const MAX_INLINE_PAYLOAD_BYTES = 7000;

export type Queryable = Database | Parameters<Parameters<Database['transaction']>[0]>[0];

export interface StoredEvent {
  id: number;
  account: Account;
  recipient: string | null;
  event: AccountEvent;
  createdAtMs: number;
}

/** A session that ended travels as the SHA-256 of its ID, never the ID. */
export type ChannelMessage =
  | { kind: 'event'; stored: StoredEvent }
  | { kind: 'eventRef'; id: number; account: Account }
  | { kind: 'sessionEnded'; sessionHash: string };

export function encodeChannelMessage(message: ChannelMessage): string {
  if (message.kind === 'sessionEnded') return JSON.stringify({ k: 's', s: message.sessionHash });
  if (message.kind === 'eventRef')
    return JSON.stringify({
      k: 'r',
      i: message.id,
      a: [message.account.region, message.account.clientId],
    });
  const { stored } = message;
  return JSON.stringify({
    k: 'e',
    i: stored.id,
    a: [stored.account.region, stored.account.clientId],
    p: stored.recipient,
    e: stored.event,
    t: stored.createdAtMs,
  });
}

/** Undefined for anything this version does not know. */
export function decodeChannelMessage(payload: string): ChannelMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as Record<string, unknown>;
  if (message.k === 's' && typeof message.s === 'string')
    return { kind: 'sessionEnded', sessionHash: message.s };
  const account = accountFrom(message.a);
  if (!account || typeof message.i !== 'number') return undefined;
  if (message.k === 'r') return { kind: 'eventRef', id: message.i, account };
  if (message.k !== 'e' || typeof message.t !== 'number') return undefined;
  const event = AccountEventSchema.safeParse(message.e);
  if (!event.success) return undefined;
  return {
    kind: 'event',
    stored: {
      id: message.i,
      account,
      recipient: typeof message.p === 'string' ? message.p : null,
      event: event.data,
      createdAtMs: message.t,
    },
  };
}

function accountFrom(value: unknown): Account | undefined {
  if (!Array.isArray(value) || typeof value[1] !== 'string') return undefined;
  const region = RegionSchema.safeParse(value[0]);
  return region.success ? { region: region.data, clientId: value[1] } : undefined;
}

/** `bff.account_events` and its channel, shared by every instance on one database. */
export class EventStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * Announced only if `tx` commits. A per-account advisory lock held from taking the ID until
   * commit, so a browser resuming after ID n never misses a lower ID that committed later.
   */
  async append(
    input: { account: Account; recipient: string | null; event: AccountEvent; nowMs: number },
    tx?: Queryable,
  ): Promise<StoredEvent> {
    if (!tx) return this.#db.transaction((own) => this.append(input, own));
    await tx.execute(
      sql`select pg_advisory_xact_lock(${EVENT_LOCK_CLASS}::int, hashtext(${accountKey(input.account)}))`,
    );
    const [row] = await tx
      .insert(accountEvents)
      .values({
        region: input.account.region,
        clientId: input.account.clientId,
        recipient: input.recipient,
        type: input.event.type,
        data: input.event.data,
        createdAt: new Date(input.nowMs),
      })
      .returning({ id: accountEvents.id });
    if (!row) throw new Error('the account event was not written');
    const stored: StoredEvent = {
      id: row.id,
      account: input.account,
      recipient: input.recipient,
      event: input.event,
      createdAtMs: input.nowMs,
    };
    let payload = encodeChannelMessage({ kind: 'event', stored });
    if (Buffer.byteLength(payload) > MAX_INLINE_PAYLOAD_BYTES)
      payload = encodeChannelMessage({ kind: 'eventRef', id: row.id, account: input.account });
    await tx.execute(sql`select pg_notify(${EVENT_CHANNEL}, ${payload})`);
    return stored;
  }

  async announceSessionEnded(sessionHash: string): Promise<void> {
    const payload = encodeChannelMessage({ kind: 'sessionEnded', sessionHash });
    await this.#db.execute(sql`select pg_notify(${EVENT_CHANNEL}, ${payload})`);
  }

  /** Theirs and everyone's (every person's when undefined), oldest first. */
  async after(
    account: Account,
    person: string | undefined,
    afterId: number,
    limit: number,
  ): Promise<StoredEvent[]> {
    const rows = await this.#db
      .select()
      .from(accountEvents)
      .where(
        and(
          ofAccount(accountEvents, account),
          gt(accountEvents.id, afterId),
          person === undefined
            ? undefined
            : or(isNull(accountEvents.recipient), eq(accountEvents.recipient, person)),
        ),
      )
      .orderBy(asc(accountEvents.id))
      .limit(limit);
    return rows.flatMap((row) => {
      const stored = toStoredEvent(row);
      return stored ? [stored] : [];
    });
  }

  async byId(id: number): Promise<StoredEvent | undefined> {
    const [row] = await this.#db.select().from(accountEvents).where(eq(accountEvents.id, id));
    return row ? toStoredEvent(row) : undefined;
  }

  /** `oldestKeptId`: below it events may have been pruned. */
  async position(account: Account): Promise<{ headId: number; oldestKeptId: number | undefined }> {
    const [head] = await this.#db
      .select({ id: max(accountEvents.id) })
      .from(accountEvents)
      .where(ofAccount(accountEvents, account));
    const [oldest] = await this.#db.select({ id: min(accountEvents.id) }).from(accountEvents);
    return {
      headId: Number(head?.id ?? 0),
      oldestKeptId: oldest?.id == null ? undefined : Number(oldest.id),
    };
  }

  async prune(beforeMs: number): Promise<void> {
    await this.#db.delete(accountEvents).where(lt(accountEvents.createdAt, new Date(beforeMs)));
  }
}

function toStoredEvent(row: typeof accountEvents.$inferSelect): StoredEvent | undefined {
  const region = RegionSchema.safeParse(row.region);
  const event = AccountEventSchema.safeParse({ type: row.type, data: row.data });
  // A row of a newer version's event type is skipped by this one.
  if (!region.success || !event.success) return undefined;
  return {
    id: row.id,
    account: { region: region.data, clientId: row.clientId },
    recipient: row.recipient,
    event: event.data,
    createdAtMs: row.createdAt.getTime(),
  };
}
