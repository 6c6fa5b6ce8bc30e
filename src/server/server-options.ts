import type { FastifyServerOptions } from 'fastify';
import type { DatabaseHandle } from '#infra/database.ts';
import type { ServerEnv } from './env.ts';
import type { ChangeQueueOptions } from './budget/change-queue.ts';
import type { ChannelListenerOptions } from './events/event-channel.ts';
import type { FleetQueueOptions } from './fleet/fleet-queue.ts';
import type { FleetRunnerHooks } from './fleet/fleet-runner.ts';
import type { LedgerHooks } from './ledger/ledger.ts';
import type { OidcClient } from './session/oidc.ts';
import type { SignInLimitOptions } from './session/sign-in-limits.ts';

/**
 * The BFF's database: an open one to share (npm start, tests), never closed by the BFF; or where
 * the BFF opens its own (`dataDir`, `databaseUrl`: `db/storage.ts`).
 */
export type DatabaseOption =
  | { database: DatabaseHandle }
  | { database?: undefined; dataDir: string }
  | { database?: undefined; databaseUrl: string };

/**
 * What `buildServerApp` needs. The parsed env fits as is (`{ ...parseServerEnv(process.env) }`);
 * only `upstreams` and a database are required: an open one (`database`), else PostgreSQL at
 * `databaseUrl` or PGlite in `dataDir` (`db/storage.ts`).
 */
export type ServerOptions = Pick<ServerEnv, 'upstreams'> &
  Partial<Omit<ServerEnv, 'upstreams'>> &
  DatabaseOption & {
    /** The built SPA (`dist/client`); no static serving when absent. */
    staticDir?: string;
    logger?: FastifyServerOptions['logger'];
    /**
     * The upstream's clock, epoch ms, on which the vendor counts its limit of calls per device and
     * so the BFF its budget of them (docs/decisions/007-device-call-budget.md, section 1). Default
     * `Date.now`; `npm start` passes the sandbox's clock when it runs the sandbox, which its admin
     * API moves (`sandboxNow()` of the sandbox app, wired in `scripts/start.ts`).
     */
    upstreamClock?: (() => number) | undefined;
    /** What tests set: clocks, timings and hooks (`ServerTestingOptions`); none in production. */
    testing?: ServerTestingOptions;
  };

/**
 * The test knobs of `buildServerApp`, gathered so production options stay few: each has a
 * production default, and `npm start`, `main.ts` and the bench set none.
 */
export interface ServerTestingOptions {
  /** Clock of sessions and tokens, epoch ms; tests move it. Default `Date.now`. */
  now?: () => number;
  /**
   * How long a ledger entry stays `pending` before another attempt may treat its outcome as
   * unknown (a BFF that died mid-call). Default: every attempt timing out, plus 5 s.
   */
  ledgerLeaseMs?: number;
  /** Sign-in rate limits (defaults: 30 per IP and minute, 10 failures per client in 15 min). */
  signInLimits?: SignInLimitOptions;
  /** How long an open circuit fails fast before a trial call (default 10 s). */
  circuitHalfOpenAfterMs?: number;
  /** Test-only hooks into the ledger (the crash test kills the process between steps). */
  ledgerHooks?: LedgerHooks;
  /**
   * How long writing a ledger entry waits for the site of its devices before recording it
   * without (default 1 s).
   */
  siteLookupWaitMs?: number;
  /** Company sign-in: replaces `fetch` for requests to the IdP (tests relay and alter them). */
  oidcFetch?: ConstructorParameters<typeof OidcClient>[1]['fetch'];
  /** Timings of the fleet job queue (tests shorten them). */
  fleetQueue?: FleetQueueOptions;
  /** The longest wait between two tries of one fleet batch, ms (default 30 s; tests shorten it). */
  fleetRetryWaitCapMs?: number;
  /** Test-only hooks into fleet job steps (the crash test kills the process between steps). */
  fleetHooks?: FleetRunnerHooks;
  /** Timings of the queue of changes (tests shorten them). */
  changeQueue?: ChangeQueueOptions;
  /**
   * How long a replace or an undo due now is waited for before it is answered as queued, ms
   * (default 15 s).
   */
  changeSettleWaitMs?: number;
  /** Timings of live updates: heartbeat and session checks, the listener's reconnection. */
  liveUpdates?: { heartbeatMs?: number; listener?: ChannelListenerOptions };
  /**
   * The refresher's look for due devices, ms (default 1 s; 0: only when `readModel.reads.runDue()`
   * is called, for tests that drive it).
   */
  readModelTickMs?: number;
  /**
   * How long a device claimed for a read stays this BFF's, ms on the upstream clock (default
   * 2 min): the reads a killed BFF had under way wait that long for another (crash tests shorten it).
   */
  readModelLeaseMs?: number;
}
