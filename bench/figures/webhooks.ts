/**
 * Outgoing webhook figures (docs/architecture.md, Budgets; Webhooks): the sandbox (fixture
 * `fleet`) and the BFF in this process on PGlite, a receiver on loopback. An operator sends one
 * command to each of `changes` devices, one every {@link CHANGE_EVERY_MS}, through the BFF; each
 * is a change the BFF learns (a device command's new status), which goes to every endpoint. Run
 * twice in the same process: with {@link ENDPOINTS} endpoints subscribed, and with none (the
 * reference), so the operator's change is measured with and without the webhook worker.
 */
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { buildSandboxApp } from '#sandbox/app.ts';
import { buildServerApp } from '#server/app.ts';
import { VENDOR_API_BASE_PATH } from '#server/upstream/upstream-caller.ts';
import { createTestDatabase } from '#test/support/databases.ts';
import { BrowserClient } from '#test/support/http-client.ts';
import type { BenchOptions } from '../lib/context.ts';
import { judged, reported, type BenchResult, type Figure } from '../lib/results.ts';
import { percentile } from '../lib/stats.ts';

export const WEBHOOK_FIGURES = {
  firstAttemptP99: {
    name: 'webhooks.first_attempt_p99_ms_100_endpoints',
    unit: 'ms',
    budget: 5_000,
  },
  changeRatio: {
    name: 'webhooks.change_p99_ratio_100_endpoints_to_none',
    unit: 'x',
    budget: 1.5,
  },
  changeP99: { name: 'webhooks.change_p99_ms_100_endpoints', unit: 'ms', budget: null },
} satisfies Record<string, Figure>;

/** Endpoints subscribed in the measured run. */
const ENDPOINTS = 100;
/**
 * An operator's pace, a command a second: 100 deliveries a second. At four a second (400
 * deliveries a second) the first attempt's p99 was 7.2 s in this process on PGlite on a loaded
 * machine of 2 cores (bench/EVIDENCE.md, Outgoing webhooks).
 */
const CHANGE_EVERY_MS = 1_000;
/** Full run and smoke sizes: commands sent, one device each. */
const CHANGES = { full: 30, smoke: 3 };
const DEMO_EU = { region: 'eu', clientId: 'demo-eu', clientSecret: 'demo-eu-secret' } as const;
const MINUTE_MS = 60_000;
/** A receiver that answers 204 to every delivery and prints its port. */
const RECEIVER = `
const server = require('node:http').createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(204).end());
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;

const originOf = (app: { server: { address(): unknown } }) =>
  `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

/** The commands of this run: `BENCH_WEBHOOK_CHANGES` (1 to 50) when set. */
export function webhookChangesOf(smoke: boolean, env: NodeJS.ProcessEnv = process.env): number {
  const asked = env.BENCH_WEBHOOK_CHANGES;
  if (asked === undefined || asked === '') return smoke ? CHANGES.smoke : CHANGES.full;
  const changes = Number(asked);
  if (!Number.isInteger(changes) || changes < 1 || changes > 50)
    throw new Error('BENCH_WEBHOOK_CHANGES must be a whole number from 1 to 50');
  return changes;
}

interface WebhookRun {
  /** Wall ms of each command's POST, asked to answered. */
  changeMs: number[];
  /** Wall ms from each delivery written to its first attempt. */
  firstAttemptMs: number[];
  deliveries: number;
}

/** One run with `endpoints` subscribed to every device command's new status. */
async function runWebhooks(endpoints: number, changes: number): Promise<WebhookRun> {
  const database = await createTestDatabase('pglite');
  const handle = await database.open();
  const sandbox = await buildSandboxApp({
    dataDir: database.dataDir,
    fixture: 'fleet',
    inMemory: true,
    adminEnabled: true,
  });
  await sandbox.listen({ host: '127.0.0.1', port: 0 });
  // The receiver is another system: in a process of its own, so its work is not the BFF's.
  const receiver = spawn(process.execPath, ['-e', RECEIVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const receiverPort = await new Promise<number>((resolve, reject) => {
    receiver.once('error', reject);
    receiver.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  const receiverUrl = `http://127.0.0.1:${receiverPort}/hook`;
  const sandboxUrl = originOf(sandbox);
  const upstream = (region: string) => ({
    authUrl: `${sandboxUrl}/${region}`,
    baseUrl: `${sandboxUrl}/${region}${VENDOR_API_BASE_PATH}`,
  });
  let bff: FastifyInstance | undefined;
  try {
    bff = await buildServerApp({
      upstreams: { eu: upstream('eu'), au: upstream('au') },
      database: handle,
      dataDir: database.dataDir,
      upstreamClock: () => sandbox.sandboxNow(),
      webhooksAllowPrivateAddresses: true,
      logger: { level: 'error' },
    } as Parameters<typeof buildServerApp>[0]);
    await bff.listen({ host: '127.0.0.1', port: 0 });
    const app = bff;
    const browser = new BrowserClient(originOf(app));
    const signedIn = await browser.signIn(DEMO_EU);
    if (signedIn.status !== 200) throw new Error(`sign-in: ${signedIn.status}`);
    const bound = await browser.post('/api/sites', { siteId: 'PLANT-EU-F001' });
    if (bound.status !== 201 && bound.status !== 200)
      throw new Error(`binding: ${bound.status} ${bound.text.slice(0, 200)}`);
    for (let made = 0; made < endpoints; made += 1) {
      const answer = await browser.post('/api/webhooks', {
        url: receiverUrl,
        eventTypes: ['deviceCommand.statusChanged'],
      });
      if (answer.status !== 201) throw new Error(`endpoint: ${answer.status} ${answer.text}`);
    }
    // The queues start a second after the BFF is ready; the webhook worker must be running.
    await app.webhookQueue.start();

    const startMs = Math.ceil((sandbox.sandboxNow() + 30 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
    const changeMs: number[] = [];
    for (let index = 0; index < changes; index += 1) {
      const deviceId = `BAT-EU-F001-${String(index + 1).padStart(2, '0')}`;
      const askedAt = performance.now();
      const answer = await browser.post(`/api/devices/${deviceId}/commands`, {
        powerControl: { targetBatteryPowerW: 2_000 },
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(startMs + 30 * MINUTE_MS).toISOString(),
      });
      changeMs.push(performance.now() - askedAt);
      if (answer.status !== 202 && answer.status !== 201)
        throw new Error(`command on ${deviceId}: ${answer.status} ${answer.text.slice(0, 200)}`);
      await new Promise((resolve) => setTimeout(resolve, CHANGE_EVERY_MS));
    }
    const firstAttemptMs: number[] = [];
    let deliveries = 0;
    if (endpoints > 0) {
      const deadline = performance.now() + 5 * MINUTE_MS;
      for (;;) {
        const { rows } = (await handle.db.execute(`
          select count(*)::int as n, count(*) filter (where attempts_made > 0)::int as tried
          from bff.webhook_deliveries`)) as unknown as { rows: { n: number; tried: number }[] };
        const row = rows[0] ?? { n: 0, tried: 0 };
        deliveries = row.n;
        if (row.n >= changes * endpoints && row.tried === row.n) break;
        if (performance.now() > deadline)
          throw new Error(`${row.tried} of ${row.n} deliveries attempted after 5 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const { rows } = (await handle.db.execute(`
        select extract(epoch from (min(a.at) - d.created_at)) * 1000 as ms
        from bff.webhook_deliveries d join bff.webhook_attempts a on a.delivery_id = d.id
        group by d.id, d.created_at`)) as unknown as { rows: { ms: string | number }[] };
      firstAttemptMs.push(...rows.map((row) => Number(row.ms)));
    }
    return { changeMs, firstAttemptMs, deliveries };
  } finally {
    await bff?.close();
    await sandbox.close();
    receiver.kill();
    await database.drop();
  }
}

/**
 * Measures both runs: with {@link ENDPOINTS} endpoints, then with none.
 *
 * @throws when a command or an endpoint is refused, or deliveries are not attempted in 5 minutes.
 */
export async function measureWebhooks(options: BenchOptions): Promise<BenchResult[]> {
  const changes = webhookChangesOf(options.smoke);
  const measured = await runWebhooks(ENDPOINTS, changes);
  options.log(
    `    ${changes} changes, ${measured.deliveries} deliveries: first attempt p99 ${Math.round(percentile(measured.firstAttemptMs, 99))} ms`,
  );
  const reference = await runWebhooks(0, changes);
  const spread = (values: number[]) =>
    [50, 90, 99].map((p) => `p${p} ${Math.round(percentile(values, p))}`).join(', ');
  options.log(
    `    an operator's command, ms: ${spread(measured.changeMs)} with ${ENDPOINTS} endpoints; ${spread(reference.changeMs)} with none`,
  );
  const withP99 = percentile(measured.changeMs, 99);
  const withoutP99 = percentile(reference.changeMs, 99);
  const note = `${changes} commands, one every ${CHANGE_EVERY_MS} ms, ${ENDPOINTS} endpoints; in process on PGlite`;
  return [
    judged(WEBHOOK_FIGURES.firstAttemptP99, percentile(measured.firstAttemptMs, 99), {
      reason: `from the delivery written (in the transaction that learned the change) to its first attempt; ${measured.deliveries} deliveries; ${note}`,
    }),
    judged(WEBHOOK_FIGURES.changeRatio, withP99 / withoutP99, {
      reference: withoutP99,
      reason: `p99 of an operator's command through the BFF with ${ENDPOINTS} endpoints (${Math.round(withP99)} ms) over none (${Math.round(withoutP99)} ms); ${note}`,
    }),
    reported(WEBHOOK_FIGURES.changeP99, withP99, {
      reference: withoutP99,
      why: 'an absolute time swings with the load of the machine; the ratio to no endpoints is judged',
      reason: note,
    }),
  ];
}
