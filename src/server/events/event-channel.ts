import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { DatabaseHandle } from '#infra/database.ts';
import { EVENT_CHANNEL } from './event-store.ts';

export interface ChannelHandlers {
  onPayload: (payload: string) => void;
  /** Notifications sent meanwhile were lost: the owner catches up from the table. */
  onResumed: () => void;
  onLost: (error: Error, retryInMs: number) => void;
}

export interface ChannelListenerOptions {
  /** Default 1 s, doubling. */
  retryFirstMs?: number;
  /** Default 30 s. */
  retryMaxMs?: number;
}

export interface ChannelListener {
  /** Resolves once the first `LISTEN` holds or failed (then tried again). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * On PGlite, its own `listen` (every app of the process hears every notification). On PostgreSQL
 * one dedicated connection, not from the pool (it would hold one for good), listening again after
 * a restart or failover.
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
    // npm start closes the shared instance last.
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
