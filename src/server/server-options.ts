import type { FastifyServerOptions } from 'fastify';
import type { DatabaseHandle } from '#infra/database.ts';
import type { ServerEnv } from './env.ts';
import type { ChangeQueueOptions } from './budget/change-queue.ts';
import type { VerdictQueueOptions } from './telemetry/verdict-queue.ts';
import type { WebhookQueueOptions } from './webhooks/webhook-queue.ts';
import type { ChannelListenerOptions } from './events/event-channel.ts';
import type { FleetQueueOptions } from './fleet/fleet-queue.ts';
import type { FleetRunnerHooks } from './fleet/fleet-runner.ts';
import type { LedgerHooks } from './ledger/ledger.ts';
import type { OidcClient } from './session/oidc.ts';
import type { SignInLimitOptions } from './session/sign-in-limits.ts';

/** An open database the BFF never closes, or where it opens its own (`db/storage.ts`). */
export type DatabaseOption =
  | { database: DatabaseHandle }
  | { database?: undefined; dataDir: string }
  | { database?: undefined; databaseUrl: string };

/** What `buildServerApp` needs: `{ ...parseServerEnv(process.env) }` fits, with a database. */
export type ServerOptions = Pick<ServerEnv, 'upstreams'> &
  Partial<Omit<ServerEnv, 'upstreams'>> &
  DatabaseOption & {
    /** The built SPA (`dist/client`); no static serving when absent. */
    staticDir?: string;
    logger?: FastifyServerOptions['logger'];
    /**
     * The upstream's clock, epoch ms, on which the budget counts (decision 007, section 1).
     * Default `Date.now`; `scripts/start.ts` passes the sandbox's.
     */
    upstreamClock?: (() => number) | undefined;
    /** What tests set: clocks, timings and hooks (`ServerTestingOptions`); none in production. */
    testing?: ServerTestingOptions;
  };

/** The test knobs of `buildServerApp`, kept apart so production options stay few. */
export interface ServerTestingOptions {
  /** Clock of sessions and tokens, epoch ms; tests move it. Default `Date.now`. */
  now?: () => number;
  /** How long a ledger entry stays `pending` before its outcome is unknown (timeouts + 5 s). */
  ledgerLeaseMs?: number;
  /** Sign-in rate limits (defaults: 30 per IP and minute, 10 failures per client in 15 min). */
  signInLimits?: SignInLimitOptions;
  /** Requests per API token and minute (default 120). */
  apiTokenRequestsPerMinute?: number;
  /** How long an open circuit fails fast before a trial call (default 10 s). */
  circuitHalfOpenAfterMs?: number;
  /** Test-only hooks into the ledger (the crash test kills the process between steps). */
  ledgerHooks?: LedgerHooks;
  /** How long a ledger entry waits for its devices' site before being written without (1 s). */
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
   * The webhooks' clock, epoch ms: when deliveries are due, made and kept (default `now`). Tests
   * move it through the retry schedule rather than wait.
   */
  webhookNow?: () => number;
  /** Timings of the webhook delivery queue (tests turn its own look off and `recheck()`). */
  webhookQueue?: WebhookQueueOptions;
  /** Timings of the queue of verifications (tests shorten them). */
  verdictQueue?: VerdictQueueOptions;
  /** How long a planned change due now is waited for before it is answered queued (15 s). */
  changeSettleWaitMs?: number;
  /** Timings of live updates: heartbeat and session checks, the listener's reconnection. */
  liveUpdates?: { heartbeatMs?: number; listener?: ChannelListenerOptions };
  /** The refresher's look for due devices, ms (default 1 s; 0: only on `reads.runDue()`). */
  readModelTickMs?: number;
  /** The fleet snapshot's look for due devices, ms (default 5 s; 0: only on `runDue()`). */
  fleetSnapshotTickMs?: number;
  /** How long a device claimed for a read stays this BFF's, upstream ms (default 2 min). */
  readModelLeaseMs?: number;
}
