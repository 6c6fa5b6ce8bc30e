/**
 * Crash test of the command ledger (docs/architecture.md, Ledger): the BFF is killed with SIGKILL
 * between the upstream's 202 and the ledger's update, restarted on the same database, and the
 * submission reconciles to exactly one command: none lost, none duplicated. On PGlite and (with
 * TEST_DATABASE_URL) PostgreSQL.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerPageSchema } from '#domain/ledger.ts';
import { startBffChild, type BffChild } from '../support/bff-child.ts';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.ts';
import { BrowserClient, type TestResponse } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';
import { VENDOR_API_BASE_PATH } from '#server/upstream/upstream-caller.ts';

const MINUTE_MS = 60_000;
const LEASE_MS = 1_500;

describe.each(DATABASE_KINDS)('a BFF killed mid-submission on %s', (kind) => {
  let stack: Stack;
  let bffDatabase: TestDatabase;
  const children: BffChild[] = [];

  beforeAll(async () => {
    // An account with 30 calls per device and minute (the sandbox's limit and the BFF's budget):
    // the BFF processes run on the wall clock, and the retry after the crash spends a third call
    // of the device (the history read that settles it), which at the vendor's 2 waits a minute.
    stack = await startStack({ database: kind, sandboxRateLimitPerMinute: 30 });
    bffDatabase = await createTestDatabase(kind);
  });
  afterAll(async () => {
    for (const child of children) await child.stop();
    await bffDatabase.drop();
    await stack.close();
  });

  const start = async (crashAfterUpstreamAnswer: boolean) => {
    const region = (name: string) => ({
      authUrl: `${stack.sandboxUrl}/${name}`,
      baseUrl: `${stack.sandboxUrl}/${name}${VENDOR_API_BASE_PATH}`,
    });
    const child = await startBffChild({
      dataDir: bffDatabase.dataDir,
      ...(bffDatabase.databaseUrl ? { databaseUrl: bffDatabase.databaseUrl } : {}),
      upstreams: { eu: region('eu'), au: region('au') },
      ledgerLeaseMs: LEASE_MS,
      crashAfterUpstreamAnswer,
      deviceCallsPerMinute: { eu: 30, au: 30 },
    });
    children.push(child);
    return child;
  };

  it(
    'reconciles to exactly one command after SIGKILL between the 202 and the ledger write',
    { timeout: 120_000 },
    async () => {
      await stack.admin.reset();
      const first = await start(true);
      let browser = new BrowserClient(first.origin);
      expect((await browser.signIn(DEMO_EU)).status).toBe(200);
      expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);

      const nowMs = await stack.admin.nowMs();
      const startMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + 10 * MINUTE_MS;
      const command = {
        powerControl: { targetBatteryPowerW: -2500 },
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(startMs + 30 * MINUTE_MS).toISOString(),
      };
      const key = 'crash-test-key-1';
      const submit = () =>
        browser.request({
          method: 'POST',
          path: '/api/devices/BAT-EU-001-A/commands',
          json: command,
          headers: { 'idempotency-key': `"${key}"` },
        });

      const died = await submit().then(
        (response) => `answered ${response.status}`,
        () => 'connection lost',
      );
      expect(died).toBe('connection lost');
      expect(await first.exited).toBe('SIGKILL');
      const upstreamAfterCrash = (await stack.admin.stats()).byRoute as Record<string, number>;

      const second = await start(false);
      const cookies = browser.cookies;
      browser = new BrowserClient(second.origin);
      for (const [name, value] of cookies) browser.cookies.set(name, value);
      expect((await browser.get('/api/session')).status).toBe(200);

      // The browser retries with the same key, honouring Retry-After while the lease runs (409)
      // or the device's calls are spent (429).
      let settled: TestResponse | undefined;
      let attempts = 0;
      while (attempts < 20) {
        attempts += 1;
        settled = await submit();
        if (settled.status !== 409 && settled.status !== 429) break;
        await sleep(Math.min(2_000, Number(settled.headers['retry-after'] ?? 1) * 1000));
      }
      expect(settled?.status).toBe(202);
      const { id } = settled?.json<{ id: string }>() ?? { id: '' };

      // What the vendor holds, from its own history (the BFF answers from its read model).
      const history = await stack.vendorHistory('BAT-EU-001-A', command);
      const ledger = LedgerPageSchema.parse(
        (await browser.get('/api/ledger?deviceId=BAT-EU-001-A')).json(),
      ).entries;
      const duplicates = Math.max(0, history.length - 1);
      const lost =
        history.filter((c) => c.id !== id).length +
        (history.some((c) => c.id === id) ? 0 : 1) +
        (ledger.some((e) => e.commandId === id && e.state === 'succeeded') ? 0 : 1);
      const submissionsSent = (upstreamAfterCrash['eu POST /device/:deviceId/commands'] ??
        0) as number;
      console.info(
        `fault report ${JSON.stringify({ fault: 'SIGKILL after 202', database: kind, browserAttempts: attempts + 1, submissionsSent, faultsInjected: 1, duplicates, lost })}`,
      );
      expect(submissionsSent).toBe(1);
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ kind: 'submit', state: 'succeeded', commandId: id });
      expect(ledger[0]?.outcome?.reconciled).toBe('found');
      expect(duplicates).toBe(0);
      expect(lost).toBe(0);
    },
  );
});
