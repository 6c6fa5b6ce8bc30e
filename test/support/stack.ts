/**
 * The whole stack for tests over real HTTP: the sandbox upstream and the BFF, each on
 * 127.0.0.1 with an ephemeral port, on a fresh temporary data directory and a fresh database
 * shared by both, as under `npm start` (PGlite, or PostgreSQL with `database: 'postgres'`). Reused by the integration, security and fault suites.
 *
 * ```ts
 * const stack = await startStack();          // in beforeAll
 * const browser = stack.browser();           // cookie jar + X-CSRF/Origin like the SPA
 * await browser.signIn(DEMO_EU);
 * await stack.admin.advanceClock(60_000);    // the sandbox admin API
 * await stack.close();                       // in afterAll: closes both, deletes the data
 * ```
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '#infra/database.ts';
import { loggerOptions } from '#infra/logger.ts';
import { buildSandboxApp, type SandboxApp } from '#sandbox/app.ts';
import { buildServerApp, type ServerOptions } from '#server/app.ts';
import { createTestDatabase, type DatabaseKind } from './databases.ts';
import { BrowserClient } from './http-client.ts';
import { startFlakyRelay, type FlakyRelay } from './flaky-relay.ts';
import { startTokenTap, type TokenTap } from './token-tap.ts';
import { SandboxAdmin } from './sandbox-admin.ts';
import { VENDOR_API_BASE_PATH } from '#server/upstream/upstream-caller.ts';

/** Demo credentials of the sandbox fixture (docs/architecture.md, Upstream contract). */
export const DEMO_EU = {
  region: 'eu',
  clientId: 'demo-eu',
  clientSecret: 'demo-eu-secret',
} as const;
export const DEMO_AU = {
  region: 'au',
  clientId: 'demo-au',
  clientSecret: 'demo-au-secret',
} as const;

export interface StackOptions {
  /** Options of `buildServerApp` over the stack's defaults (e.g. `now`, `logger`). */
  bff?: Partial<ServerOptions>;
  /** Sandbox fixture; default `demo`. */
  fixture?: 'demo' | 'large';
  /**
   * The vendor's rate limit the sandbox enforces, requests per device per rolling minute (0 =
   * off); default the vendor's 2.
   */
  sandboxRateLimitPerMinute?: number;
  /** Database both run on; default `pglite` (see `DATABASE_KINDS` for what this machine offers). */
  database?: DatabaseKind;
  /** Relay the BFF's token requests through a {@link TokenTap} that remembers the tokens. */
  tapTokens?: boolean;
  /** Send the BFF's API calls (not token requests) through a {@link FlakyRelay}. */
  relay?: boolean;
  /** Keep every BFF log line (pino JSON, level `trace`) in `logLines`. */
  captureLogs?: boolean;
  /**
   * Return once the BFF listens, without waiting for its fleet job queue, which starts in the
   * background (default: wait, so a test may create jobs at once).
   */
  fleetJobsStarting?: boolean;
  /**
   * Give the BFF the sandbox's clock as the upstream's, as `npm start` does
   * (the sandbox app's `sandboxNow`): the device budget and the read model's reads then follow
   * `admin.advanceClock`.
   */
  followSandboxClock?: boolean;
}

/** A command as the vendor's history answers it, as far as the tests read it. */
export interface VendorHistoryCommand {
  id: string;
  powerControl: Record<string, unknown>;
}

export interface Stack {
  /** `http://127.0.0.1:<port>` of the BFF: its public origin. */
  bffUrl: string;
  /** `http://127.0.0.1:<port>` of the sandbox (regions under `/eu` and `/au`). */
  sandboxUrl: string;
  bff: FastifyInstance;
  sandbox: SandboxApp;
  database: DatabaseHandle;
  dataDir: string;
  admin: SandboxAdmin;
  /** The relay between BFF and sandbox, when `relay` was set. */
  relay?: FlakyRelay;
  /** Access tokens the BFF obtained, when `tapTokens` was set. */
  tokens: string[];
  /** BFF log lines, when `captureLogs` was set. */
  logLines: string[];
  /** A new browser (own cookie jar) talking to the BFF. */
  browser(): BrowserClient;
  /**
   * Makes the BFF forget what it learnt of the vendor's device commands and the calls it spent
   * (its read model and device budget), as `admin.reset()` makes the sandbox forget them: a test
   * after a reset then meets a fresh vendor account on both sides.
   */
  forgetUpstream(): Promise<void>;
  /**
   * The commands the sandbox holds for `deviceId` whose window meets the range, read from the
   * vendor's own history (every page), not through the BFF: the truth fault and crash tests
   * compare the BFF's answers with. Each page counts as a vendor call in the sandbox's stats and
   * in the vendor's limit: a page refused for the limit is read again after its `Retry-After`,
   * reached by moving the sandbox clock.
   */
  vendorHistory(
    deviceId: string,
    range: { startTime: string; endTime: string },
    credentials?: { region: 'eu' | 'au'; clientId: string; clientSecret: string },
  ): Promise<VendorHistoryCommand[]>;
  /** Closes the BFF, then the sandbox and the database, and deletes the database and data. */
  close(): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const testDatabase = await createTestDatabase(options.database ?? 'pglite');
  const { dataDir } = testDatabase;
  const database = await testDatabase.open();
  const sandbox = await buildSandboxApp({
    dataDir,
    database,
    fixture: options.fixture ?? 'demo',
    adminEnabled: true,
    deviceRateLimitPerMinute: options.sandboxRateLimitPerMinute,
  });
  const upstreamClock = options.followSandboxClock ? () => sandbox.sandboxNow() : undefined;
  await sandbox.listen({ host: '127.0.0.1', port: 0 });
  const sandboxUrl = originOf(sandbox);

  const tap: TokenTap | undefined = options.tapTokens ? await startTokenTap(sandboxUrl) : undefined;
  const relay = options.relay ? await startFlakyRelay(sandboxUrl) : undefined;
  const upstream = (region: string) => ({
    authUrl: `${tap?.origin ?? sandboxUrl}/${region}`,
    baseUrl: `${relay?.origin ?? sandboxUrl}/${region}${VENDOR_API_BASE_PATH}`,
  });
  const logLines: string[] = [];
  const bff = await buildServerApp({
    upstreams: { eu: upstream('eu'), au: upstream('au') },
    dataDir,
    database,
    ...(upstreamClock ? { upstreamClock } : {}),
    // These tests count each device's calls; the fleet snapshot would take one at a moment of its
    // own (a test of it passes its period in `options.bff`).
    fleetSnapshotEveryMs: 0,
    ...(options.captureLogs
      ? {
          logger: {
            ...loggerOptions('bff', 'trace'),
            stream: { write: (line: string) => void logLines.push(line) },
          },
        }
      : {}),
    ...options.bff,
  });
  await bff.listen({ host: '127.0.0.1', port: 0 });
  if (!options.fleetJobsStarting) await bff.fleetJobsStarted();
  const bffUrl = originOf(bff);

  return {
    bffUrl,
    sandboxUrl,
    bff,
    sandbox,
    database,
    dataDir,
    admin: new SandboxAdmin(sandboxUrl),
    ...(relay ? { relay } : {}),
    tokens: tap?.tokens ?? [],
    logLines,
    browser: () => new BrowserClient(bffUrl),
    forgetUpstream: async () => {
      for (const table of [
        'device_commands',
        'device_read_state',
        'device_command_changes',
        'device_call_slots',
        'device_call_busy',
        'queued_change_devices',
        'queued_changes',
      ])
        await database.db.execute(`delete from bff.${table}`);
    },
    vendorHistory: (deviceId, range, credentials = DEMO_EU) =>
      readVendorHistory(sandboxUrl, deviceId, range, credentials),
    close: async () => {
      await bff.close();
      await sandbox.close();
      await tap?.close();
      await relay?.close();
      await testDatabase.drop();
    },
  };
}

function originOf(app: FastifyInstance): string {
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** The vendor's answer body, out of the envelope dialect's `data` when it has one. */
function unwrap(body: unknown): unknown {
  return body && typeof body === 'object' && 'data' in body && 'code' in body
    ? (body as { data: unknown }).data
    : body;
}

async function readVendorHistory(
  sandboxUrl: string,
  deviceId: string,
  range: { startTime: string; endTime: string },
  credentials: { region: 'eu' | 'au'; clientId: string; clientSecret: string },
): Promise<VendorHistoryCommand[]> {
  const commands: VendorHistoryCommand[] = [];
  const size = 100;
  for (let page = 1; page <= 100; page += 1) {
    const query = new URLSearchParams({
      startTime: range.startTime,
      endTime: range.endTime,
      page: String(page),
      size: String(size),
    });
    const url = `${sandboxUrl}/${credentials.region}${VENDOR_API_BASE_PATH}/device/${deviceId}/commands?${query}`;
    // A token per read: moving the clock may outlive one (the fault suite's short tokens).
    const read = async () =>
      fetch(url, {
        headers: {
          authorization: `Bearer ${await vendorToken(sandboxUrl, credentials)}`,
          accept: 'application/json',
        },
      });
    let answer = await read();
    // The vendor's limit counts these reads too: wait for the device's next call as its partner
    // would, by moving the sandbox clock (never sleeping).
    for (let waited = 0; answer.status === 429 && waited < 3; waited += 1) {
      const retryAfterS = Math.max(1, Number(answer.headers.get('retry-after') ?? 60));
      await new SandboxAdmin(sandboxUrl).advanceClock(retryAfterS * 1000);
      answer = await read();
    }
    if (!answer.ok) throw new Error(`the sandbox refused the history read: ${answer.status}`);
    const body = unwrap(await answer.json()) as { commands?: VendorHistoryCommand[] | null };
    const pageCommands = body.commands ?? [];
    commands.push(...pageCommands);
    if (pageCommands.length < size) break;
  }
  return commands;
}

/** A fresh access token of the vendor's token endpoint (either token dialect). */
async function vendorToken(
  sandboxUrl: string,
  credentials: { region: 'eu' | 'au'; clientId: string; clientSecret: string },
): Promise<string> {
  const tokenAnswer = await fetch(`${sandboxUrl}/${credentials.region}/api/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    }).toString(),
  });
  const token = unwrap(await tokenAnswer.json()) as { access_token?: string; accessToken?: string };
  const accessToken = token.access_token ?? token.accessToken;
  if (!tokenAnswer.ok || !accessToken)
    throw new Error(`the sandbox gave no token: ${tokenAnswer.status}`);
  return accessToken;
}

/**
 * Submits a device command straight to the vendor (the sandbox), as another client of the partner
 * account would: the BFF neither sends it nor knows of it until it reads the device's history. It
 * counts as a vendor call of the device in the sandbox's limit.
 *
 * @returns the vendor's status and body.
 */
export async function vendorSubmit(
  sandboxUrl: string,
  deviceId: string,
  command: { powerControl: Record<string, unknown>; startTime: string; endTime: string },
  credentials: { region: 'eu' | 'au'; clientId: string; clientSecret: string } = DEMO_EU,
): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(
    `${sandboxUrl}/${credentials.region}${VENDOR_API_BASE_PATH}/device/${deviceId}/commands`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await vendorToken(sandboxUrl, credentials)}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(command),
    },
  );
  return { status: answer.status, body: unwrap(await answer.json()) };
}
