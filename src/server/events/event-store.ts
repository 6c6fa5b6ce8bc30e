import { and, asc, eq, gt, isNull, lt, max, min, or, sql } from 'drizzle-orm';
import { AccountEventSchema, type AccountEvent } from '../../domain/account-events.ts';
import { RegionSchema } from '../../domain/token.ts';
import type { Database } from '../../infra/database.ts';
import { accountEvents } from '../db/schema.ts';
import { ofAccount } from '../db/account-rows.ts';
import { accountKey, type Account } from '../../domain/account.ts';

/**
 * How long account events are kept for a browser to resume from (docs/architecture.md, Live
 * updates): a browser away longer (a laptop closed overnight) is told to refetch everything
 * instead of replaying, which costs it one read per page; a day covers a shift and a night.
 */
export const EVENT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The PostgreSQL channel on which every BFF instance hears of new events and ended sessions. */
export const EVENT_CHANNEL = 'powerdeck_events';

/**
 * The first key of the advisory lock that makes one account's events commit in ID order (the
 * second is the account's hash): "powd" in ASCII, apart from the single-key locks of migrations
 * and pg-boss (PostgreSQL keeps the one- and two-key spaces apart).
 */
const EVENT_LOCK_CLASS = 0x706f7764;

/** NOTIFY payloads are at most 8000 bytes; a larger event is announced by ID and read. */
const MAX_INLINE_PAYLOAD_BYTES = 7000;

/** A database, or a transaction of one (drizzle's `tx`). */
export type Queryable = Database | Parameters<Parameters<Database['transaction']>[0]>[0];

/** An event as stored: its account, its recipient (a person key, or null for everyone). */
export interface StoredEvent {
  id: number;
  account: Account;
  recipient: string | null;
  event: AccountEvent;
  createdAtMs: number;
}

/**
 * What the channel carries: an event (whole, or only its ID and account when too large for a
 * NOTIFY payload), or a session that ended (the SHA-256 of its ID, never the ID).
 */
export type ChannelMessage =
  | { kind: 'event'; stored: StoredEvent }
  | { kind: 'eventRef'; id: number; account: Account }
  | { kind: 'sessionEnded'; sessionHash: string };

/** The JSON of a {@link ChannelMessage}. */
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

/** Reads a channel payload; undefined for anything this version does not know. */
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

/**
 * The account events table (`bff.account_events`) and the channel that announces its rows. Every
 * BFF instance on one database shares both.
 */
export class EventStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * Writes an event and announces it on {@link EVENT_CHANNEL}, in `tx` when given (then the
   * announcement goes out when, and only if, `tx` commits), else in a transaction of its own.
   * One account's events commit in ID order: an advisory lock per account is held from before the
   * ID is taken until the commit, so a browser that resumes after ID n never misses an event
   * whose ID is below n but which committed later.
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

  /** Tells every instance that a session ended (sign-out, revoked), by the hash of its ID. */
  async announceSessionEnded(sessionHash: string): Promise<void> {
    const payload = encodeChannelMessage({ kind: 'sessionEnded', sessionHash });
    await this.#db.execute(sql`select pg_notify(${EVENT_CHANNEL}, ${payload})`);
  }

  /**
   * The account's events after `afterId` that `person` may see (theirs and everyone's; every
   * person's when undefined), oldest first, at most `limit`.
   */
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

  /** One event by ID, when it is still kept and readable. */
  async byId(id: number): Promise<StoredEvent | undefined> {
    const [row] = await this.#db.select().from(accountEvents).where(eq(accountEvents.id, id));
    return row ? toStoredEvent(row) : undefined;
  }

  /**
   * Where the account's events stand: the newest ID (0 when none is kept) and the oldest ID kept
   * of any account (undefined when none), below which events may have been pruned.
   */
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

  /** Deletes the events published before `beforeMs`. */
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
