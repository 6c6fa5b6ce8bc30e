import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, type TestContext } from 'vitest';
import { externalConfig, isExternalTarget, sandboxConfig, type ContractConfig } from './config.ts';
import { ContractHttp } from './contract-http.ts';
import { DevicePacer } from './device-pacer.ts';
import { OpenApiResponseValidator } from './openapi-response-validator.ts';
import { SandboxAdmin } from './sandbox-admin.ts';
import { UpstreamClient } from './upstream-client.ts';
import { isActiveStatus, StatusRecordSchema } from '#sandbox/vendor/schemas.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** An effective window as the wire carries it. */
export interface Window {
  startTime: string;
  endTime: string;
}

/** What a contract test works with; see {@link useContractTarget}. */
export interface ContractTarget {
  config: ContractConfig;
  http: ContractHttp;
  /** The configured client: signed in, with `config.siteId` bound, before each test. */
  upstream: UpstreamClient;
  /** A fresh client of the same credentials, not signed in. */
  newClient(): UpstreamClient;
  /** A client of the other region, not signed in; undefined when not configured. */
  otherRegionClient(): UpstreamClient | undefined;
  /**
   * The admin API, or skips the test with the reason when the target has none (a real vendor).
   * Never skips against the in-process sandbox.
   */
  requireAdmin(context: TestContext, why: string): SandboxAdmin;
  /** Skips the test when `value` is undefined against a real vendor; returns it otherwise. */
  requireSetting<T>(context: TestContext, value: T | undefined, setting: string): T;
  /** Epoch ms of a free stretch of time for this test, in the future of the target's clock. */
  baseMs: number;
  /** A window `offsetMs` after {@link baseMs}, lasting `durationMs`. */
  window(offsetMs: number, durationMs: number): Window;
  /**
   * Gives every device its slots of the vendor's rate limit back (2 requests per device per
   * rolling minute; docs/upstream.md, Rate limit): a test calls it before a third call about a
   * device within a minute. With an admin API it moves the target's clock a minute on; against a
   * real vendor it does nothing, as every call there waits for its devices' slots
   * ({@link DevicePacer}).
   */
  nextMinute(): Promise<void>;
  /**
   * A signed-in client of the same credentials whose calls never wait for the vendor's slots, to
   * meet the rate limit on purpose; `deviceIds` have every slot free when it is returned (against
   * a real vendor it waits for that; the sandbox was reset before the test).
   */
  rateLimitProbe(deviceIds: readonly string[]): Promise<UpstreamClient>;
  /** Remembers a command so it is cancelled after the test on a target that cannot reset. */
  track(deviceId: string, commandId: string): void;
  /** Remembers a batch so it is cancelled after the test on a target that cannot reset. */
  trackBatch(batchCommandId: string): void;
  /** Remembers an extra site binding so it is undone after the test on such a target. */
  trackBinding(siteId: string): void;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Registers the hooks of a contract test file and returns the target, valid inside tests.
 * Without `CONTRACT_BASE_URL` it starts the sandbox in-process on 127.0.0.1, port 0, with the
 * demo fixture and the admin API, and closes it after the file. Before each test: reset (when
 * there is an admin API), sign in, bind the configured site. After each test on a target that
 * cannot reset: cancel what the test left active.
 */
export function useContractTarget(): ContractTarget {
  const target = {} as ContractTarget;
  let closeSandbox: (() => Promise<void>) | undefined;
  let admin: SandboxAdmin | undefined;
  let tracked: { deviceId: string; commandId: string }[] = [];
  let trackedBatches: string[] = [];
  let trackedBindings: string[] = [];
  let slot = 0;
  // A real vendor keeps what earlier files and runs left behind: there each file starts at a
  // random minute of the coming weeks (a new one per run, so not a seeded generator) and gives
  // each test its own 12 hours. The sandbox starts empty for each file, so a run there is the
  // same every time.
  const runOffsetMs = isExternalTarget() ? randomInt(20 * 24 * 60) * MINUTE_MS : 0;

  beforeAll(async () => {
    let config: ContractConfig;
    if (isExternalTarget()) {
      config = externalConfig();
    } else {
      const started = await startSandbox();
      closeSandbox = started.close;
      config = sandboxConfig(started.origin);
    }
    const validator = await OpenApiResponseValidator.load();
    const http = new ContractHttp(validator, {
      base: config.baseUrl,
      auth: config.authUrl,
      admin: config.adminUrl,
      otherBase: config.otherRegion?.baseUrl,
      otherAuth: config.otherRegion?.authUrl,
    });
    admin = config.adminUrl ? new SandboxAdmin(http) : undefined;
    // Without an admin API the clock cannot be moved: every client waits for the vendor's slots.
    const pacer = admin ? undefined : new DevicePacer();
    const paced = pacer && { pacer, wait: true };
    const credentials = { clientId: config.clientId, clientSecret: config.clientSecret };
    const servers = { auth: 'auth', base: 'base' } as const;
    Object.assign(target, {
      config,
      http,
      upstream: new UpstreamClient(http, credentials, servers, paced),
      newClient: () => new UpstreamClient(http, credentials, servers, paced),
      otherRegionClient: () =>
        config.otherRegion &&
        new UpstreamClient(
          http,
          config.otherRegion,
          { auth: 'otherAuth', base: 'otherBase' },
          paced,
        ),
      async rateLimitProbe(deviceIds: readonly string[]) {
        await pacer?.untilFree(deviceIds);
        const probe = new UpstreamClient(
          http,
          credentials,
          servers,
          pacer && { pacer, wait: false },
        );
        await probe.signIn();
        return probe;
      },
      requireAdmin(context: TestContext, why: string) {
        if (!admin) {
          context.skip(`needs the sandbox admin API (CONTRACT_ADMIN_URL) to ${why}`);
          throw new Error('unreachable');
        }
        return admin;
      },
      requireSetting<T>(context: TestContext, value: T | undefined, setting: string): T {
        if (value === undefined) {
          context.skip(`needs ${setting}`);
          throw new Error('unreachable');
        }
        return value;
      },
      async nextMinute() {
        if (admin) await admin.advanceClock(MINUTE_MS);
      },
      window(offsetMs: number, durationMs: number): Window {
        const startMs = target.baseMs + offsetMs;
        return { startTime: iso(startMs), endTime: iso(startMs + durationMs) };
      },
      track(deviceId: string, commandId: string) {
        tracked.push({ deviceId, commandId });
      },
      trackBatch(batchCommandId: string) {
        trackedBatches.push(batchCommandId);
      },
      trackBinding(siteId: string) {
        if (siteId !== target.config.siteId) trackedBindings.push(siteId);
      },
    });
  });

  afterAll(async () => {
    await closeSandbox?.();
  });

  beforeEach(async () => {
    if (admin) {
      await admin.reset();
      await admin.setFaults({});
    }
    target.upstream.accessToken = undefined;
    await target.upstream.signIn();
    const bound = await target.upstream.bindSite(target.config.siteId);
    if (bound.status !== 200)
      throw new Error(`Binding ${target.config.siteId} answered ${bound.status}`);
    const nowMs = admin ? await admin.nowMs() : Date.now();
    const wholeMinute = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS;
    target.baseMs = admin
      ? wholeMinute + HOUR_MS
      : wholeMinute + DAY_MS + runOffsetMs + slot * 12 * HOUR_MS;
    slot += 1;
  });

  afterEach(async () => {
    if (admin) {
      tracked = [];
      trackedBatches = [];
      trackedBindings = [];
      return;
    }
    for (const batchCommandId of trackedBatches)
      await target.upstream.cancelBatch(batchCommandId).catch(() => undefined);
    trackedBatches = [];
    for (const { deviceId, commandId } of tracked) {
      const status = await target.upstream.queryStatus(deviceId, commandId).catch(() => undefined);
      const record = StatusRecordSchema.safeParse(status?.body);
      if (record.success && isActiveStatus(record.data.status))
        await target.upstream.cancelCommand(deviceId, commandId).catch(() => undefined);
    }
    tracked = [];
    for (const siteId of trackedBindings)
      await target.upstream.unbindSite(siteId).catch(() => undefined);
    trackedBindings = [];
  });

  return target;
}

async function startSandbox(): Promise<{ origin: string; close: () => Promise<void> }> {
  const { buildSandboxApp } = await import('#sandbox/app.ts');
  const dataDir = await mkdtemp(join(tmpdir(), 'powerdeck-contract-'));
  const app = await buildSandboxApp({ dataDir, fixture: 'demo', adminEnabled: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
