import { setTimeout as sleep } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Db, fromPglite as FromPglite, PgBoss } from 'pg-boss';
import type { DatabaseHandle } from '../../infra/database.ts';

/**
 * The job queues' own schema, beside the BFF's; pg-boss creates and migrates it
 * (docs/decisions/005-fleet-job-queue.md). Fleet job steps and queued changes each have a queue
 * of their own in it.
 */
export const QUEUE_SCHEMA = 'bff_queue';

/**
 * The database as pg-boss reads it: pg-boss's own PGlite adapter on the embedded database, the
 * BFF's pool on PostgreSQL (multi-statement answers flattened as pg-boss's own driver does), so
 * no second pool is opened.
 */
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

/** First wait before a queue's start is tried again after a failure, ms; doubles per failure. */
export const START_RETRY_FIRST_MS = 1_000;
/** Longest wait between two tries of a queue's start, ms. */
export const START_RETRY_MAX_MS = 30_000;

/** Where the host writes pg-boss's own errors (pino's logger fits). */
export interface JobQueueHostLog {
  error(details: Record<string, unknown>, message: string): void;
}

/**
 * The one pg-boss of a BFF, shared by its queues (fleet job steps, queued changes): one instance
 * of pg-boss on the database, whose start (schema install or migration) runs once, and whose
 * queues are set up one after another. Two pg-boss instances starting at once on PGlite's one
 * connection interleave their transactions and one fails ("current transaction is aborted");
 * one instance per BFF is also what pg-boss expects of a process.
 *
 * Made at once; pg-boss is loaded and started by the first {@link JobQueueHost.withStarted}.
 */
export class JobQueueHost {
  readonly #handle: DatabaseHandle;
  readonly #log: JobQueueHostLog;
  readonly #superviseIntervalSeconds: number;
  #boss: PgBoss | undefined;
  #bossStarted = false;
  /** The setups asked for so far, run one after another. */
  #setups: Promise<unknown> = Promise.resolve();

  /**
   * @param options.superviseIntervalSeconds how often pg-boss looks for jobs that expired (their
   *   BFF died), s; default 10.
   */
  constructor(
    handle: DatabaseHandle,
    log: JobQueueHostLog,
    options: { superviseIntervalSeconds?: number | undefined } = {},
  ) {
    this.#handle = handle;
    this.#log = log;
    this.#superviseIntervalSeconds = options.superviseIntervalSeconds ?? 10;
  }

  /** pg-boss once started, else undefined. */
  get boss(): PgBoss | undefined {
    return this.#bossStarted ? this.#boss : undefined;
  }

  /**
   * Runs `setup` (a queue's `createQueue` and `work`) with pg-boss started, after every setup
   * asked for before it has ended. A failed start of pg-boss is tried again by the next call.
   *
   * @throws what pg-boss's start or `setup` threw.
   */
  withStarted<T>(setup: (boss: PgBoss) => Promise<T>): Promise<T> {
    const run = this.#setups.then(async () => setup(await this.#started()));
    this.#setups = run.catch(() => undefined);
    return run;
  }

  /**
   * Stops pg-boss once every setup under way ended: a job under way finishes first (at most
   * `timeoutMs`). The database stays open (it is the BFF's).
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    await this.#setups;
    await this.#boss?.stop({ graceful: true, close: false, timeout: timeoutMs });
  }

  async #started(): Promise<PgBoss> {
    // pg-boss and its dependencies load here, off the start path (about 0.2 s of module loading).
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
 * Tries `tryOnce` (a queue's start) until it works or `stopped` aborts: after a failure,
 * `onFailure` is told and the next try waits {@link START_RETRY_FIRST_MS}, doubling up to
 * {@link START_RETRY_MAX_MS}, a wait `stopped` cuts short so a close never waits out a retry.
 * The same backoff as pg-boss's own start retries, but over the queue and its worker too.
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
