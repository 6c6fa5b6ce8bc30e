import type { FastifyBaseLogger } from 'fastify';
import type { AccountEvent } from '#domain/account-events.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { hashSessionId } from '../session/database-session-store.ts';
import type { StoredSession } from '../session/session-store.ts';
import {
  channelListenerFor,
  type ChannelListener,
  type ChannelListenerOptions,
} from './event-channel.ts';
import {
  EVENT_RETENTION_MS,
  EventStore,
  decodeChannelMessage,
  type Queryable,
  type StoredEvent,
} from './event-store.ts';
import { EventStream, type StreamCloseReason } from './event-stream.ts';
import { accountKey, personKey, type Account, type Person } from '#domain/account.ts';
import { readSessionDeadlines, sessionDeadlineMs } from './session-ends.ts';

/** Proxies commonly close a response idle for 60 s; a quarter of that leaves room for a late timer. */
export const HEARTBEAT_MS = 15_000;

export const PRUNE_EVERY_MS = 10 * 60 * 1000;

/** One further behind is told to resync, cheaper than hundreds of invalidations. */
export const MAX_REPLAYED_EVENTS = 500;

/** Between 2 and 5 s, spread so the browsers of a stopping instance do not all return at once. */
export function retryHintMs(random: () => number = Math.random): number {
  return 2000 + Math.floor(random() * 3000);
}

export type DevicesChangedListener = (
  account: Account | undefined,
  deviceIds: readonly string[] | undefined,
) => void;

export interface AccountEventsOptions {
  handle: DatabaseHandle;
  now: () => number;
  log: FastifyBaseLogger;
  /** Default {@link HEARTBEAT_MS}; tests shorten it. */
  heartbeatMs?: number;
  listener?: ChannelListenerOptions;
}

export interface PublishOptions {
  /** Written and announced only if it commits. */
  tx?: Queryable | undefined;
  /** Default everyone's. */
  recipient?: Person | undefined;
}

/**
 * Account events, durable and across instances (docs/architecture.md, Live updates): written to
 * `bff.account_events`, announced by `LISTEN/NOTIFY`, fanned out in memory, so an open stream holds
 * no database connection.
 */
export class AccountEvents {
  readonly store: EventStore;
  readonly #handle: DatabaseHandle;
  readonly #now: () => number;
  readonly #log: FastifyBaseLogger;
  readonly #heartbeatMs: number;
  readonly #listener: ChannelListener;
  readonly #byAccount = new Map<string, Set<EventStream>>();
  readonly #bySession = new Map<string, Set<EventStream>>();
  readonly #deviceListeners: DevicesChangedListener[] = [];
  #chain: Promise<void> = Promise.resolve();
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #pruneTimer: NodeJS.Timeout | undefined;
  #checkingSessions = false;
  #closed = false;

  constructor(options: AccountEventsOptions) {
    this.#handle = options.handle;
    this.store = new EventStore(options.handle.db);
    this.#now = options.now;
    this.#log = options.log;
    this.#heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.#listener = channelListenerFor(
      options.handle,
      {
        onPayload: (payload) => this.#enqueue(() => this.#onPayload(payload)),
        onResumed: () =>
          this.#enqueue(() => {
            // Announcements may have been missed while the connection was down.
            for (const listener of this.#deviceListeners) listener(undefined, undefined);
            return this.#catchUp();
          }),
        onLost: (error, retryInMs) =>
          this.#log.warn(
            { err: error, retryInMs },
            'live updates: the database connection that hears of new events broke; listening again',
          ),
      },
      options.listener,
    );
  }

  /**
   * Runs before the event reaches this instance's streams, so a browser told of it reads after the
   * cache dropped. `deviceIds` undefined: any device of the account; `account` too: of any account.
   */
  onDevicesChanged(listener: DevicesChangedListener): void {
    this.#deviceListeners.push(listener);
  }

  async start(): Promise<void> {
    await this.#listener.start();
    this.#heartbeatTimer = setInterval(() => this.#tick(), this.#heartbeatMs);
    this.#heartbeatTimer.unref();
    this.#pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.#pruneTimer.unref();
  }

  /** Browsers come back to another instance. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeatTimer);
    clearInterval(this.#pruneTimer);
    for (const streams of this.#byAccount.values())
      for (const stream of [...streams]) stream.close('shutdown');
    await this.#listener.close();
    await this.#chain;
  }

  /**
   * Holds the account's event lock until `tx` commits, so IDs grow in commit order: call it last in a
   * transaction, never before an upstream call.
   *
   * @throws when the database refuses the write.
   */
  publish(
    account: Account,
    event: AccountEvent,
    options: PublishOptions = {},
  ): Promise<StoredEvent> {
    return this.store.append(
      {
        account,
        recipient: options.recipient ? personKey(options.recipient) : null,
        event,
        nowMs: this.#now(),
      },
      options.tx,
    );
  }

  /** `lastEventId` undefined: start live; `'invalid'`: a position this server never gave, so resync. */
  open(input: {
    account: Account;
    person: Person;
    session: StoredSession;
    lastEventId: number | 'invalid' | undefined;
    retryMs: number;
  }): EventStream {
    const stream = new EventStream({
      account: input.account,
      person: personKey(input.person),
      sessionHash: hashSessionId(input.session.id),
      sessionDeadlineMs: sessionDeadlineMs(input.session),
      onClose: (closed) => this.#forget(closed),
    });
    if (this.#closed) {
      stream.close('shutdown');
      return stream;
    }
    addTo(this.#byAccount, stream.accountKey, stream);
    addTo(this.#bySession, stream.sessionHash, stream);
    stream.sendRetry(input.retryMs);
    this.#replay(stream, input.lastEventId).catch((error: unknown) => {
      this.#log.error({ err: error }, 'live updates: replaying missed events failed');
      stream.close('failed');
    });
    return stream;
  }

  /** Never throws: a sign-out must not fail for it. */
  async sessionEnded(sessionId: string): Promise<void> {
    const sessionHash = hashSessionId(sessionId);
    this.#endSession(sessionHash);
    await this.store.announceSessionEnded(sessionHash).catch((error: unknown) => {
      this.#log.warn({ err: error }, 'live updates: could not tell other instances of a sign-out');
    });
  }

  /** Never throws. */
  async prune(): Promise<void> {
    await this.store.prune(this.#now() - EVENT_RETENTION_MS).catch((error: unknown) => {
      this.#log.warn({ err: error }, 'live updates: pruning old events failed');
    });
  }

  get openStreams(): number {
    let count = 0;
    for (const streams of this.#byAccount.values()) count += streams.size;
    return count;
  }

  async #replay(stream: EventStream, lastEventId: number | 'invalid' | undefined): Promise<void> {
    const { headId, oldestKeptId } = await this.store.position(stream.account);
    if (stream.closed) return;
    if (lastEventId === undefined || lastEventId === headId) {
      stream.lastSentId = headId;
      return stream.finishReplay(headId);
    }
    // Resync when the position was never given here (reset, another database) or may be pruned.
    if (
      lastEventId === 'invalid' ||
      lastEventId > headId ||
      (oldestKeptId !== undefined && lastEventId < oldestKeptId - 1)
    ) {
      stream.sendControl('resync', headId);
      return stream.finishReplay(headId);
    }
    stream.lastSentId = lastEventId;
    const missed = await this.store.after(
      stream.account,
      stream.person,
      lastEventId,
      MAX_REPLAYED_EVENTS + 1,
    );
    if (stream.closed) return;
    if (missed.length > MAX_REPLAYED_EVENTS) stream.sendControl('resync', headId);
    else for (const stored of missed) stream.send(stored);
    stream.finishReplay(headId);
  }

  /** One at a time, so events reach each stream in order. */
  #enqueue(work: () => Promise<void> | void): void {
    this.#chain = this.#chain.then(work).catch((error: unknown) => {
      this.#log.error({ err: error }, 'live updates: handling a new event failed');
    });
  }

  async #onPayload(payload: string): Promise<void> {
    const message = decodeChannelMessage(payload);
    if (!message) return;
    if (message.kind === 'sessionEnded') return this.#endSession(message.sessionHash);
    const account = message.kind === 'event' ? message.stored.account : message.account;
    if (this.#deviceListeners.length > 0) {
      const event = message.kind === 'event' ? message.stored.event : undefined;
      // Too large for the channel, or a binding change: any device of the account may have changed.
      if (!event || event.type === 'deviceCommandsChanged' || event.type === 'siteBindingsChanged')
        for (const listener of this.#deviceListeners)
          listener(
            account,
            event?.type === 'deviceCommandsChanged' ? event.data.deviceIds : undefined,
          );
    }
    const streams = this.#byAccount.get(accountKey(account));
    if (!streams || streams.size === 0) return;
    const stored = message.kind === 'event' ? message.stored : await this.store.byId(message.id);
    if (!stored) return;
    for (const stream of [...streams]) stream.deliver(stored);
  }

  async #catchUp(): Promise<void> {
    for (const streams of [...this.#byAccount.values()]) {
      const live = [...streams].filter((stream) => !stream.closed);
      const first = live[0];
      if (!first) continue;
      const fromId = Math.min(...live.map((stream) => stream.lastSentId));
      const missed = await this.store.after(
        first.account,
        undefined,
        fromId,
        MAX_REPLAYED_EVENTS + 1,
      );
      if (missed.length > MAX_REPLAYED_EVENTS) {
        const { headId } = await this.store.position(first.account);
        for (const stream of live) if (!stream.replaying) stream.sendControl('resync', headId);
      } else for (const stored of missed) for (const stream of live) stream.deliver(stored);
    }
  }

  #tick(): void {
    for (const streams of this.#byAccount.values())
      for (const stream of [...streams]) stream.heartbeat();
    void this.#checkSessions();
  }

  /** They close unless the session was used meanwhile. */
  async #checkSessions(): Promise<void> {
    if (this.#checkingSessions) return;
    const nowMs = this.#now();
    const due = [...this.#bySession.entries()].filter(([, streams]) =>
      [...streams].some((stream) => stream.sessionDeadlineMs <= nowMs),
    );
    if (due.length === 0) return;
    this.#checkingSessions = true;
    try {
      const deadlines = await readSessionDeadlines(
        this.#handle.db,
        due.map(([hash]) => hash),
      );
      for (const [hash, streams] of due) {
        const deadline = deadlines.get(hash);
        if (deadline === undefined || deadline <= nowMs) this.#endSession(hash);
        else for (const stream of streams) stream.sessionDeadlineMs = deadline;
      }
    } catch (error) {
      this.#log.warn({ err: error }, 'live updates: checking the sessions of open streams failed');
    } finally {
      this.#checkingSessions = false;
    }
  }

  #endSession(sessionHash: string): void {
    for (const stream of [...(this.#bySession.get(sessionHash) ?? [])]) {
      stream.sendControl('sessionEnded');
      stream.close('sessionEnded');
    }
  }

  #forget(stream: EventStream): void {
    removeFrom(this.#byAccount, stream.accountKey, stream);
    removeFrom(this.#bySession, stream.sessionHash, stream);
    const reason: StreamCloseReason | undefined = stream.closeReason;
    if (reason === 'slowReader')
      this.#log.info('live updates: closed the stream of a browser that read too slowly');
  }
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
