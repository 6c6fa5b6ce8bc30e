/**
 * Fleet jobs across BFF processes (docs/fleet-dispatch.md, Job model): a BFF killed with SIGKILL
 * mid-job, between the upstream's answer to a batch and the ledger's write, and restarted on the
 * same database, finishes the job with every device holding its command exactly once; two BFF
 * instances on one PostgreSQL run a job's batches once between them. On PGlite and (with
 * TEST_DATABASE_URL) PostgreSQL; the two-instance case on PostgreSQL only, since an embedded
 * database belongs to one process.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FleetJobSchema } from '#domain/fleet-job.ts';
import { startBffChild, type BffChild } from '../support/bff-child.ts';
import type { BffProcessConfig } from '../support/bff-process.ts';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.ts';
import { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';
import { commandsPerDevice, waitForJob } from '../support/fleet.ts';
import { VENDOR_API_BASE_PATH } from '#server/upstream/upstream-caller.ts';

const MINUTE_MS = 60_000;
const BATCH_ROUTE = 'eu POST /devices/commands';
const FAST_QUEUE = {
  pollingIntervalSeconds: 0.5,
  stepExpireSeconds: 3,
  superviseIntervalSeconds: 1,
};

describe.each(DATABASE_KINDS)(
  'fleet jobs across BFF processes on %s',
  { timeout: 300_000 },
  (kind) => {
    let stack: Stack;
    let bffDatabase: TestDatabase;
    const children: BffChild[] = [];

    beforeAll(async () => {
      // As in the fleet job suite: an account with 30 calls per device and minute, the sandbox's
      // limit and the BFF's budget alike, since the BFF processes here run on the wall clock and
      // the read model must confirm every device of the job within the test.
      stack = await startStack({ database: kind, sandboxRateLimitPerMinute: 30 });
    });
    afterAll(() => stack.close());
    afterEach(async () => {
      for (const child of children.splice(0)) await child.stop();
      await bffDatabase.drop();
    });

    const start = async (extra: Partial<BffProcessConfig> = {}) => {
      const region = (name: string) => ({
        authUrl: `${stack.sandboxUrl}/${name}`,
        baseUrl: `${stack.sandboxUrl}/${name}${VENDOR_API_BASE_PATH}`,
      });
      const child = await startBffChild({
        dataDir: bffDatabase.dataDir,
        ...(bffDatabase.databaseUrl ? { databaseUrl: bffDatabase.databaseUrl } : {}),
        upstreams: { eu: region('eu'), au: region('au') },
        ledgerLeaseMs: 1_500,
        fleetQueue: FAST_QUEUE,
        // The devices whose reads the killed BFF had claimed are read by the next only once its
        // claims lapse: at the default 2 min, a crash after a batch's devices were due (a loaded
        // run, batches seconds apart) left the last few devices unconfirmed that long.
        readModelLeaseMs: 10_000,
        deviceCallsPerMinute: { eu: 30, au: 30 },
        ...extra,
      });
      children.push(child);
      return child;
    };

    const signedIn = async (child: BffChild, cookiesFrom?: BrowserClient) => {
      const browser = new BrowserClient(child.origin);
      if (cookiesFrom)
        for (const [name, value] of cookiesFrom.cookies) browser.cookies.set(name, value);
      else {
        expect((await browser.signIn(DEMO_EU)).status).toBe(200);
        expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-100' })).status).toBe(201);
      }
      return browser;
    };

    const windowFrom = async () => {
      const startMs =
        Math.ceil((await stack.admin.nowMs()) / MINUTE_MS) * MINUTE_MS + 30 * MINUTE_MS;
      return {
        powerControl: { targetBatteryPowerW: -2000 },
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(startMs + 60 * MINUTE_MS).toISOString(),
      };
    };

    it('finishes a job after SIGKILL between a batch answer and the ledger write, each device once', async () => {
      await stack.admin.reset();
      bffDatabase = await createTestDatabase(kind);
      const first = await start({ crashAfterFleetBatch: 3 });
      const firstBrowser = await signedIn(first);
      const command = await windowFrom();
      const created = await firstBrowser.post('/api/fleet-jobs', {
        selection: { siteIds: ['PLANT-EU-100'] },
        command,
        rollout: { batchSize: 10, batchesPerMinute: 600 },
      });
      expect(created.status, created.text).toBe(202);
      const { jobId } = FleetJobSchema.parse(created.json());
      expect(await first.exited).toBe('SIGKILL');
      const sentBeforeRestart = (await stack.admin.stats()).byRoute as Record<string, number>;

      const second = await start();
      const browser = await signedIn(second, firstBrowser);
      // Completed once every batch went; sent once the read model found each device's command.
      const done = await waitForJob(
        browser,
        jobId,
        (job) => job.state === 'completed' && job.progress.sent + job.progress.failed === 60,
        720,
      );
      const deviceIds = done.batches.flatMap((b) => b.devices.map((d) => d.deviceId));
      const held = await commandsPerDevice(stack, deviceIds, command);
      const batchPosts = ((await stack.admin.stats()).byRoute as Record<string, number>)[
        BATCH_ROUTE
      ];
      const duplicated = [...held].filter(([, ids]) => ids.length > 1).length;
      const missing = [...held].filter(([, ids]) => ids.length === 0).length;
      console.info(
        `fault report ${JSON.stringify({ fault: 'SIGKILL after the third batch answer', database: kind, batchPostsBeforeRestart: sentBeforeRestart[BATCH_ROUTE], batchPosts, duplicated, missing })}`,
      );
      expect(sentBeforeRestart[BATCH_ROUTE]).toBe(3);
      expect(batchPosts).toBe(6);
      expect(duplicated).toBe(0);
      expect(missing).toBe(0);
      expect(done.progress).toMatchObject({ total: 60, sent: 60, failed: 0 });
    });

    it.runIf(kind === 'postgres')(
      'runs each batch once when two instances share one PostgreSQL',
      async () => {
        await stack.admin.reset();
        bffDatabase = await createTestDatabase(kind);
        const one = await start();
        const two = await start();
        const browserOne = await signedIn(one);
        const browserTwo = await signedIn(two, browserOne);
        const command = await windowFrom();
        const created = await browserOne.post('/api/fleet-jobs', {
          selection: { siteIds: ['PLANT-EU-100'] },
          command,
          rollout: { batchSize: 5, batchesPerMinute: 600 },
        });
        expect(created.status, created.text).toBe(202);
        const { jobId } = FleetJobSchema.parse(created.json());
        const done = await waitForJob(browserTwo, jobId, (job) => job.state === 'completed', 480);
        const held = await commandsPerDevice(
          stack,
          done.batches.flatMap((b) => b.devices.map((d) => d.deviceId)),
          command,
        );
        const batchPosts = ((await stack.admin.stats()).byRoute as Record<string, number>)[
          BATCH_ROUTE
        ];
        expect(batchPosts).toBe(12);
        expect([...held.values()].every((ids) => ids.length === 1)).toBe(true);
      },
    );
  },
);
