/**
 * A batch submission whose outcome is unknown (docs/architecture.md, Ledger): the connection breaks
 * after the sandbox acted, or before it saw the request. The BFF never re-sends it blindly: it
 * settles the entry from the command history (`src/server/ledger/reconcile.ts`), on PGlite and
 * (with TEST_DATABASE_URL) PostgreSQL, to exactly the commands the upstream created, none
 * duplicated.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BatchSubmissionResponseSchema } from '#domain/batch.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import { QueuedAnswerSchema, QueuedChangeStatusSchema } from '#domain/queued-change.ts';
import { DATABASE_KINDS } from '../support/databases.ts';
import type { BrowserClient, TestResponse } from '../support/http-client.ts';
import type { RelayAction } from '../support/flaky-relay.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
/** How long an unknown entry is held before a retry may settle it (the BFF's ledger lease). */
const LEASE_MS = 60_000;
const BATCH_PATH = '/eu/api/openapi/v1/devices/commands';

describe.each(DATABASE_KINDS)('an unknown batch submission on %s', { timeout: 60_000 }, (kind) => {
  let stack: Stack;
  let browser: BrowserClient;
  let baseMs: number;
  /** Added to the BFF's clock: moves it past the lease without waiting. */
  let skewMs = 0;
  /** What the relay did with each batch POST, in order. */
  let batchPosts: RelayAction[] = [];
  /** What the relay does with the next batch POSTs; then it passes them. */
  let nextBatchActions: RelayAction[] = [];
  /** Devices whose history reads the relay breaks before the upstream sees them. */
  let unreadable = new Set<string>();

  beforeAll(async () => {
    stack = await startStack({
      database: kind,
      relay: true,
      // The read model's reads run when the test says, on the sandbox's clock.
      followSandboxClock: true,
      bff: {
        testing: { now: () => Date.now() + skewMs, ledgerLeaseMs: LEASE_MS, readModelTickMs: 0 },
      },
    });
  });
  afterAll(() => stack.close());
  beforeEach(async () => {
    await stack.admin.reset();
    await stack.forgetUpstream();
    batchPosts = [];
    nextBatchActions = [];
    // Each case moves the BFF past a lease from the wall clock, as the reset sets the sandbox's
    // clock back to it: skews left by earlier cases would add up past the ledger's clock
    // allowance, and a batch would no longer match its own commands.
    skewMs = 0;
    const relay = stack.relay;
    if (!relay) throw new Error('this suite needs the relay');
    unreadable = new Set();
    relay.plan = (method, path) => {
      const [route = ''] = path.split('?');
      const history = /\/device\/([^/]+)\/commands$/.exec(route);
      if (method === 'GET' && history?.[1] && unreadable.has(history[1])) return 'resetBefore';
      if (method !== 'POST' || route !== BATCH_PATH) return 'pass';
      const action = nextBatchActions.shift() ?? 'pass';
      batchPosts.push(action);
      return action;
    };
    browser = stack.browser();
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-100' })).status).toBe(201);
    baseMs = Math.ceil((await stack.admin.nowMs()) / MINUTE_MS) * MINUTE_MS + 10 * MINUTE_MS;
  });

  /** A batch over three devices of PLANT-EU-100 not used by the other cases. */
  const batchOf = (firstDevice: number, targetBatteryPowerW: number) => ({
    devices: [0, 1, 2].map((i) => `BAT-EU-100-${String(firstDevice + i).padStart(2, '0')}`),
    command: {
      powerControl: { targetBatteryPowerW },
      startTime: new Date(baseMs).toISOString(),
      endTime: new Date(baseMs + 30 * MINUTE_MS).toISOString(),
    },
  });
  type Batch = ReturnType<typeof batchOf>;

  const submit = (batch: Batch, key: string): Promise<TestResponse> =>
    browser.request({
      method: 'POST',
      path: '/api/batches',
      json: batch,
      headers: { 'idempotency-key': `"${key}"` },
    });

  /** The commands the upstream holds for the batch's devices and window, from its own history. */
  async function upstreamCommands(batch: Batch) {
    const found: { deviceId: string; id: string }[] = [];
    for (const deviceId of batch.devices)
      for (const command of await stack.vendorHistory(deviceId, batch.command))
        if (
          command.powerControl.targetBatteryPowerW ===
          batch.command.powerControl.targetBatteryPowerW
        )
          found.push({ deviceId, id: command.id });
    return found;
  }

  async function ledgerEntry(batch: Batch) {
    const entries = LedgerPageSchema.parse(
      (await browser.get(`/api/ledger?deviceId=${batch.devices[0]}&kind=batch`)).json(),
    ).entries;
    const mine = entries.filter(
      (e) =>
        JSON.stringify(e.deviceIds) === JSON.stringify(batch.devices) &&
        e.startTime === batch.command.startTime,
    );
    expect(mine).toHaveLength(1);
    return mine[0];
  }

  it('reset after the upstream acted: settled from the history, never re-sent', async () => {
    const batch = batchOf(1, 1100);
    const key = randomUUID();
    nextBatchActions = ['resetAfter'];

    const first = await submit(batch, key);
    expect(first.status).toBe(502);
    expect(first.json()).toMatchObject({ code: 'outcome_unknown' });
    expect((await ledgerEntry(batch))?.state).toBe('unknown');

    // While the entry's lease runs, a retry waits: nothing is sent.
    const early = await submit(batch, key);
    expect(early.status).toBe(409);
    expect(early.json()).toMatchObject({ code: 'idempotency_in_progress' });

    skewMs += LEASE_MS + 1_000;
    const settled = await submit(batch, key);
    expect(settled.status).toBe(202);
    expect(settled.headers['idempotent-replayed']).toBe('true');
    const answer = BatchSubmissionResponseSchema.parse(settled.json());

    const created = await upstreamCommands(batch);
    const report = {
      database: kind,
      batchPostsSent: batchPosts.filter((a) => a !== 'resetBefore').length,
      commandsCreated: created.length,
      reconciled: answer.commands.length,
    };
    console.info(`batch reconcile report ${JSON.stringify(report)}`);
    expect(batchPosts).toEqual(['resetAfter']);
    expect(created.map((c) => c.deviceId)).toEqual(batch.devices);
    // The vendor's records name no batch: each device's command is found by window and power,
    // and the batch whose answer was lost has no batch ID (it is cancelled device by device).
    expect(answer.batchCommandId).toBeUndefined();
    expect(answer.confirmation).toBe('confirmed');
    expect(answer.commands).toEqual(created.map(({ deviceId, id }) => ({ deviceId, id })));

    const entry = await ledgerEntry(batch);
    expect(entry).toMatchObject({
      state: 'succeeded',
      outcome: { reconciled: 'found', commands: answer.commands },
    });
    expect(entry?.batchCommandId).toBeUndefined();

    // Same key again: the same answer, still one batch upstream.
    const again = await submit(batch, key);
    expect(BatchSubmissionResponseSchema.parse(again.json())).toEqual(answer);
    expect(batchPosts).toHaveLength(1);
  });

  it("reset after the upstream acted, one device's history unreadable: settled from the others", async () => {
    const batch = batchOf(10, 1150);
    const [unread = '', ...read] = batch.devices;
    const key = randomUUID();
    nextBatchActions = ['resetAfter'];
    expect((await submit(batch, key)).status).toBe(502);

    // One command found says the upstream carried the batch out: the device whose history could
    // not be read is not sent to again, and is looked for as a batch's devices are.
    unreadable = new Set([unread]);
    skewMs += LEASE_MS + 1_000;
    await stack.admin.advanceClock(MINUTE_MS);
    const settled = await submit(batch, key);
    expect(settled.status, settled.text).toBe(202);
    const answer = BatchSubmissionResponseSchema.parse(settled.json());
    const created = await upstreamCommands(batch);
    expect(created.map((c) => c.deviceId)).toEqual(batch.devices);
    expect(answer.commands).toEqual(
      created
        .filter((c) => read.includes(c.deviceId))
        .map(({ deviceId, id }) => ({ deviceId, id })),
    );
    expect(answer.confirmation).toBe('confirming');
    expect(batchPosts).toEqual(['resetAfter']);

    // Readable again: the read model finds its command.
    unreadable = new Set();
    await stack.admin.advanceClock(MINUTE_MS);
    await stack.bff.readModel.reads.runDue();
    expect(await ledgerEntry(batch)).toMatchObject({
      state: 'succeeded',
      outcome: {
        reconciled: 'found',
        confirmation: 'confirmed',
        commands: expect.arrayContaining(created.map(({ deviceId, id }) => ({ deviceId, id }))),
      },
    });
  });

  it('settled before another submission for one of its devices and window is sent', async () => {
    const batch = batchOf(4, 1200);
    const key = randomUUID();
    nextBatchActions = ['resetAfter'];
    expect((await submit(batch, key)).status).toBe(502);

    skewMs += LEASE_MS + 1_000;
    // A minute on the vendor's clock, as a browser waits: the first device's budget then has a
    // call for the history read that settles the batch and one for the submission.
    await stack.admin.advanceClock(MINUTE_MS);
    // A single submission on the batch's first device and window, with another power: the BFF
    // settles the batch first, then sends it; the upstream refuses it for the batch's command.
    const single = await browser.request({
      method: 'POST',
      path: `/api/devices/${batch.devices[0]}/commands`,
      json: { ...batch.command, powerControl: { targetBatteryPowerW: 1250 } },
      headers: { 'idempotency-key': `"${randomUUID()}"` },
    });
    expect(single.status).toBe(409);
    const entry = await ledgerEntry(batch);
    expect(entry).toMatchObject({ state: 'succeeded', outcome: { reconciled: 'found' } });

    const created = await upstreamCommands(batch);
    expect(created.map((c) => c.deviceId)).toEqual(batch.devices);
    expect(entry?.outcome?.commands).toEqual(created.map(({ deviceId, id }) => ({ deviceId, id })));
    expect(single.json()).toMatchObject({ code: 'window_overlap' });
    const replay = await submit(batch, key);
    expect(replay.status).toBe(202);
    expect(BatchSubmissionResponseSchema.parse(replay.json()).commands).toEqual(
      entry?.outcome?.commands,
    );
    expect(batchPosts).toEqual(['resetAfter']);
  });

  it('reset before the upstream saw it: found absent in the history, sent once more', async () => {
    const batch = batchOf(7, 1300);
    const key = randomUUID();
    nextBatchActions = ['resetBefore'];
    const first = await submit(batch, key);
    expect(first.status).toBe(502);
    expect(first.json()).toMatchObject({ code: 'outcome_unknown' });

    skewMs += LEASE_MS + 1_000;
    // The devices' budgets spent a call on the lost try: a minute on, the retry has one for the
    // history read that finds it absent and one to send it again.
    await stack.admin.advanceClock(MINUTE_MS);
    const sent = await submit(batch, key);
    expect(sent.status).toBe(202);
    expect(sent.headers['idempotent-replayed']).toBeUndefined();
    const answer = BatchSubmissionResponseSchema.parse(sent.json());

    const created = await upstreamCommands(batch);
    expect(batchPosts).toEqual(['resetBefore', 'pass']);
    expect(created.map((c) => c.deviceId)).toEqual(batch.devices);
    expect(answer.batchCommandId).toBeDefined();
    // The answer names no command yet; the read model finds them in its first reads after it.
    await stack.admin.advanceClock(10_000);
    await stack.bff.readModel.reads.runDue();
    expect(await ledgerEntry(batch)).toMatchObject({
      state: 'succeeded',
      batchCommandId: answer.batchCommandId,
      outcome: {
        confirmation: 'confirmed',
        commands: created.map(({ deviceId, id }) => ({ deviceId, id })),
      },
    });
  });

  it('not carried out, one history read lost on each try: the devices read are not read again, and it is sent once more', async () => {
    const batch = batchOf(13, 1400);
    const key = randomUUID();
    nextBatchActions = ['resetBefore'];
    expect((await submit(batch, key)).status).toBe(502);

    // Each round that reads every device's history loses its last read on the wire: a try that
    // reads them all again never sees them all.
    const relay = stack.relay;
    if (!relay) throw new Error('this suite needs the relay');
    const plan = relay.plan;
    const readSinceLoss = new Set<string>();
    const reads: string[] = [];
    let lostReads = 0;
    relay.plan = (method, path) => {
      const [route = ''] = path.split('?');
      const deviceId = /\/device\/([^/]+)\/commands$/.exec(route)?.[1];
      if (method !== 'GET' || !deviceId || !batch.devices.includes(deviceId))
        return plan(method, path);
      reads.push(deviceId);
      readSinceLoss.add(deviceId);
      if (readSinceLoss.size < batch.devices.length) return 'pass';
      readSinceLoss.clear();
      lostReads += 1;
      return 'resetBefore';
    };

    // The operator tries again every half minute (the vendor's 2 calls per device a minute).
    skewMs += LEASE_MS + 1_000;
    const answers: number[] = [];
    let sent: TestResponse | undefined;
    for (let tries = 0; tries < 8 && !sent; tries += 1) {
      await stack.admin.advanceClock(30_000);
      const answer = await submit(batch, key);
      answers.push(answer.status);
      if (answer.status === 202) sent = answer;
    }
    console.info(
      `batch settle report ${JSON.stringify({ database: kind, answers, historyReads: reads.length, lostReads })}`,
    );
    // Settled not carried out once every device was read: sent again, or queued for the
    // devices' next calls (the last device's were spent on its reads) and then sent.
    expect(answers.at(-1)).toBe(202);
    expect(sent?.headers['idempotent-replayed']).toBeUndefined();
    const queued = QueuedAnswerSchema.safeParse(sent?.json());
    if (queued.success) {
      const changePath = `/api/changes/${queued.data.queued.changeId}`;
      let status = QueuedChangeStatusSchema.parse((await browser.get(changePath)).json());
      for (let round = 0; round < 100 && ['queued', 'sending'].includes(status.state); round += 1) {
        const waitMs = status.goesAt ? Date.parse(status.goesAt) - (await stack.admin.nowMs()) : 0;
        if (waitMs > 0) await stack.admin.advanceClock(waitMs);
        else await sleep(100);
        status = QueuedChangeStatusSchema.parse((await browser.get(changePath)).json());
      }
      expect(status.state).toBe('sent');
    }
    expect(batchPosts).toEqual(['resetBefore', 'pass']);
    // Only the first round lost a read: the devices read then were not read again.
    expect(lostReads).toBe(1);
    expect(reads).toHaveLength(batch.devices.length + 1);
    const created = await upstreamCommands(batch);
    expect(created.map((c) => c.deviceId)).toEqual(batch.devices);
  });
});
