import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { DatabaseHandle } from '../../infra/database.ts';
import { EVENT_CHANNEL } from './event-store.ts';

/** What a {@link ChannelListener} tells its owner. */
export interface ChannelHandlers {
  /** A notification on {@link EVENT_CHANNEL}, with its payload. */
  onPayload: (payload: string) => void;
  /**
   * Listening resumed after a broken connection: notifications sent meanwhile were lost, so the
   * owner catches up from the table.
   */
  onResumed: () => void;
  /** Listening broke and will be tried again after `retryInMs`. */
  onLost: (error: Error, retryInMs: number) => void;
}

/** Timings of the PostgreSQL listener's reconnection. */
export interface ChannelListenerOptions {
  /** First wait before listening again after a broken connection, ms (default 1 s). */
  retryFirstMs?: number;
  /** Longest wait between tries, ms (default 30 s). */
  retryMaxMs?: number;
}

/** Listens on {@link EVENT_CHANNEL} of one database for one BFF instance. */
export interface ChannelListener {
  /** Listens from now on; resolves once the first `LISTEN` holds or failed (then tried again). */
  start(): Promise<void>;
  /** Stops listening and closes what it opened. */
  close(): Promise<void>;
}

/**
 * The listener for the BFF's database. On PGlite (one process, one connection) PGlite's own
 * `listen` on the shared instance: several apps of one process on one PGlite each hear every
 * notification. On PostgreSQL one dedicated connection of its own (not from the pool, which it
 * would hold for good), listening again after PostgreSQL ends it (a restart, a failover,
 * `pg_terminate_backend`), 1 s after, doubling up to 30 s.
 */
export function channelListenerFor(
  handle: DatabaseHandle,
  handlers: ChannelHandlers,
  options: ChannelListenerOptions = {},
): ChannelListener {
  const client = (handle.db as unknown as { $client: unknown }).$client;
  return handle.driver === 'pglite'
    ? new PgliteChannelListener(client as PGlite, handlers)
    : new PostgresChannelListener((client as pg.Pool).options, handlers, options);
}

class PgliteChannelListener implements ChannelListener {
  readonly #client: PGlite;
  readonly #handlers: ChannelHandlers;
  #unlisten: (() => Promise<void>) | undefined;

  constructor(client: PGlite, handlers: ChannelHandlers) {
    this.#client = client;
    this.#handlers = handlers;
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#client.listen(EVENT_CHANNEL, (payload) =>
      this.#handlers.onPayload(payload),
    );
  }

  async close(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    // The shared instance may already be closed by its owner (npm start closes it last).
    if (unlisten && !this.#client.closed) await unlisten().catch(() => undefined);
  }
}

class PostgresChannelListener implements ChannelListener {
  readonly #config: pg.ClientConfig;
  readonly #handlers: ChannelHandlers;
  readonly #retryFirstMs: number;
  readonly #retryMaxMs: number;
  #client: pg.Client | undefined;
  #retryMs: number;
  #retryTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(config: pg.ClientConfig, handlers: ChannelHandlers, options: ChannelListenerOptions) {
    this.#config = { ...config, application_name: 'powerdeck events' };
    this.#handlers = handlers;
    this.#retryFirstMs = options.retryFirstMs ?? 1000;
    this.#retryMaxMs = options.retryMaxMs ?? 30_000;
    this.#retryMs = this.#retryFirstMs;
  }

  /** Resolves once listening, or once the first try failed (later tries then run by themselves). */
  async start(): Promise<void> {
    await this.#listen().catch(() => undefined);
  }

  async #listen(): Promise<void> {
    const { default: pgDriver } = await import('pg');
    const client = new pgDriver.Client(this.#config);
    let lost = false;
    const onBroken = (error: Error) => {
      if (lost || this.#closed) return;
      lost = true;
      if (this.#client === client) this.#client = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      this.#retryLater(error);
    };
    client.on('error', onBroken);
    client.on('end', () => onBroken(new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (message.channel === EVENT_CHANNEL && message.payload !== undefined)
        this.#handlers.onPayload(message.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${EVENT_CHANNEL}`);
    } catch (error) {
      onBroken(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#retryMs = this.#retryFirstMs;
  }

  #retryLater(error: Error): void {
    const waitMs = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, this.#retryMaxMs);
    this.#handlers.onLost(error, waitMs);
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      if (this.#closed) return;
      this.#listen().then(
        () => {
          if (!this.#closed) this.#handlers.onResumed();
        },
        // #listen already scheduled the next try.
        () => undefined,
      );
    }, waitMs);
    this.#retryTimer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    const client = this.#client;
    this.#client = undefined;
    if (client) await client.end().catch(() => undefined);
  }
}
