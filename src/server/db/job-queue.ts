import { setTimeout as sleep } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Db, fromPglite as FromPglite, PgBoss } from 'pg-boss';
import type { DatabaseHandle } from '#infra/database.ts';

/** pg-boss creates and migrates it (decision 005). */
export const QUEUE_SCHEMA = 'bff_queue';

/** pg-boss's PGlite adapter, or the BFF's pool on PostgreSQL, so no second pool is opened. */
export function queueDatabaseOf(handle: DatabaseHandle, fromPglite: typeof FromPglite): Db {
  const client = (handle.db as unknown as { $client: unknown }).$client;
  if (handle.driver === 'pglite') return fromPglite(client as PGlite);
  const pool = client as pg.Pool;
  return {
    executeSql: async (text, values) => {
      const result = (await pool.query(text, values)) as pg.QueryResult | pg.QueryResult[];
      return Array.isArray(result)
        ? { rows: result.flatMap((r) => r.rows) }
        : { rows: result.rows };
    },
  };
}

/** Doubles per failure. */
export const START_RETRY_FIRST_MS = 1_000;
export const START_RETRY_MAX_MS = 30_000;

export interface JobQueueHostLog {
  error(details: Record<string, unknown>, message: string): void;
}

/**
 * The one pg-boss of a BFF, shared by its queues, their setups run one after another: two
 * instances starting at once on PGlite's one connection interleave transactions and one fails
 * ("current transaction is aborted"). Loaded and started by the first {@link JobQueueHost.withStarted}.
 */
export class JobQueueHost {
  readonly #handle: DatabaseHandle;
  readonly #log: JobQueueHostLog;
  readonly #superviseIntervalSeconds: number;
  #boss: PgBoss | undefined;
  #bossStarted = false;
  #setups: Promise<unknown> = Promise.resolve();

  /** @param options.superviseIntervalSeconds how often pg-boss looks for expired jobs, s; default 10. */
  constructor(
    handle: DatabaseHandle,
    log: JobQueueHostLog,
    options: { superviseIntervalSeconds?: number | undefined } = {},
  ) {
    this.#handle = handle;
    this.#log = log;
    this.#superviseIntervalSeconds = options.superviseIntervalSeconds ?? 10;
  }

  get boss(): PgBoss | undefined {
    return this.#bossStarted ? this.#boss : undefined;
  }

  /** A failed start is tried again by the next call. @throws what pg-boss's start or `setup` threw. */
  withStarted<T>(setup: (boss: PgBoss) => Promise<T>): Promise<T> {
    const run = this.#setups.then(async () => setup(await this.#started()));
    this.#setups = run.catch(() => undefined);
    return run;
  }

  /** A job under way finishes first (at most `timeoutMs`). The database stays open. */
  async stop(timeoutMs = 10_000): Promise<void> {
    await this.#setups;
    await this.#boss?.stop({ graceful: true, close: false, timeout: timeoutMs });
  }

  async #started(): Promise<PgBoss> {
    // Loaded here, off the start path (about 0.2 s of module loading).
    const boss = (this.#boss ??= await this.#make());
    if (!this.#bossStarted) {
      await boss.start();
      this.#bossStarted = true;
    }
    return boss;
  }

  async #make(): Promise<PgBoss> {
    const { PgBoss: Boss, fromPglite } = await import('pg-boss');
    const handle = this.#handle;
    const boss = new Boss({
      db: queueDatabaseOf(handle, fromPglite),
      schema: QUEUE_SCHEMA,
      ...(handle.driver === 'pglite' ? { backend: 'pglite' as const } : {}),
      schedule: false,
      superviseIntervalSeconds: this.#superviseIntervalSeconds,
      monitorIntervalSeconds: this.#superviseIntervalSeconds,
    });
    boss.on('error', (error: unknown) =>
      this.#log.error(
        { reason: error instanceof Error ? error.message : String(error) },
        'job queue error',
      ),
    );
    return boss;
  }
}

/**
 * Backs off from {@link START_RETRY_FIRST_MS} to {@link START_RETRY_MAX_MS}, a wait `stopped` cuts
 * short so a close never waits out a retry.
 *
 * @returns the try that worked (from 1), or undefined when stopped first. Never rejects.
 */
export async function startUntilStopped(
  tryOnce: () => Promise<void>,
  stopped: AbortSignal,
  onFailure: (failure: { attempt: number; retryInMs: number; reason: string }) => void,
): Promise<number | undefined> {
  for (let attempt = 1; !stopped.aborted; attempt += 1) {
    try {
      await tryOnce();
      return attempt;
    } catch (error) {
      if (stopped.aborted) return undefined;
      const retryInMs = Math.min(START_RETRY_MAX_MS, START_RETRY_FIRST_MS * 2 ** (attempt - 1));
      onFailure({
        attempt,
        retryInMs,
        reason: error instanceof Error ? error.message : String(error),
      });
      try {
        await sleep(retryInMs, undefined, { signal: stopped });
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** What a queue on the BFF's pg-boss logs. */
export interface QueueLog {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

/**
 * The start and stop every queue on the BFF's pg-boss shares (decision 005): its host (one of its
 * own when none is given, then stopped with it), the signal its stop raises, and one start in the
 * background, retried with back-off until then ({@link startUntilStopped}), each failed try
 * logged as `<name> did not start; <whileDown> until it does; trying again`.
 */
export class QueueLifecycle {
  readonly host: JobQueueHost;
  readonly #ownsHost: boolean;
  readonly #stopped = new AbortController();
  readonly #log: QueueLog;
  readonly #name: string;
  readonly #whileDown: string;
  #starting: Promise<void> | undefined;

  /**
   * @param options.name the queue in the log, "verification queue".
   * @param options.whileDown what waits while it is down, "verdicts wait".
   * @param options.superviseIntervalSeconds for a host of its own (see {@link JobQueueHost}).
   */
  constructor(options: {
    handle: DatabaseHandle;
    host?: JobQueueHost | undefined;
    log: QueueLog;
    name: string;
    whileDown: string;
    superviseIntervalSeconds?: number | undefined;
  }) {
    this.#ownsHost = options.host === undefined;
    this.host =
      options.host ??
      new JobQueueHost(options.handle, options.log, {
        superviseIntervalSeconds: options.superviseIntervalSeconds,
      });
    this.#log = options.log;
    this.#name = options.name;
    this.#whileDown = options.whileDown;
  }

  /** Raised by {@link halt}: what runs looks at it between its steps. */
  get signal(): AbortSignal {
    return this.#stopped.signal;
  }

  /**
   * Starts with `tryOnce` in the background until it works or the queue stops; never rejects.
   * Idempotent: a later call gets the first start.
   *
   * @param options.onFailure also told of each failed try, with the wait before the next.
   */
  start(
    tryOnce: () => Promise<void>,
    options: { onFailure?: (failure: { retryInMs: number }) => void } = {},
  ): Promise<void> {
    this.#starting ??= startUntilStopped(tryOnce, this.#stopped.signal, (failure) => {
      options.onFailure?.(failure);
      this.#log.error(
        { attempt: failure.attempt, retryInMs: failure.retryInMs, reason: failure.reason },
        `${this.#name} did not start; ${this.#whileDown} until it does; trying again`,
      );
    }).then((attempt) => {
      if (attempt !== undefined && attempt > 1 && !this.#stopped.signal.aborted)
        this.#log.info({ attempt }, `${this.#name} started after failed tries`);
    });
    return this.#starting;
  }

  /** Raises the stop signal and waits for a start try under way (pg-boss cannot be interrupted). */
  async halt(): Promise<void> {
    this.#stopped.abort();
    await this.#starting;
  }

  /** A job under way finishes first (at most `timeoutMs`); a shared host is stopped by its owner. */
  async stopHost(timeoutMs: number): Promise<void> {
    if (this.#ownsHost) await this.host.stop(timeoutMs);
  }
}
