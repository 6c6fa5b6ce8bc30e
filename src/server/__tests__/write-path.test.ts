/**
 * The write path through the budget of upstream calls (docs/decisions/007-device-call-budget.md,
 * sections 1, 2 and 5) on PGlite and, with TEST_DATABASE_URL, PostgreSQL: changes take a slot of
 * their devices or are queued, a queued change goes once when the upstream clock (which the test
 * moves) reaches its slot, can be withdrawn until then, survives a restart of the BFF; a 429 from
 * the vendor queues instead of retrying; a replace is planned as a whole and refused before
 * anything is sent when its window is too near; a change made against an older version of the
 * device is refused with what changed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, type TestDatabase } from '#test/support/databases.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import {
  DeviceChangeAnswerSchema,
  QueuedAnswerSchema,
  QueuedChangePageSchema,
  QueuedChangeStatusSchema,
  type QueuedChangeStatus,
} from '#domain/queued-change.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { CSRF, buildTestBff, cookieHeader, type TestBff } from './support/bff.ts';
import { vendorError, vendorPage, vendorSite, type FakeUpstream } from './support/fake-upstream.ts';
import {
  DEVICE_TABLES,
  emptyBffTables,
  startFakeAndDatabase,
  stopFakeAndDatabase,
} from './support/ledger-setup.ts';

const T0 = Date.parse('2026-05-01T10:00:00Z');
const MINUTE = 60_000;
const window = (startMin: number, lengthMin = 30) => ({
  startTime: new Date(T0 + startMin * MINUTE).toISOString(),
  endTime: new Date(T0 + (startMin + lengthMin) * MINUTE).toISOString(),
});
const command = (watts: number, startMin = 60) => ({
  powerControl: { targetBatteryPowerW: watts },
  ...window(startMin),
});

/** What the fake answers the next submissions with instead of accepting them. */
let submitScript: { status: number; retryAfter?: string }[] = [];

function programFake(fake: FakeUpstream): void {
  let serial = 0;
  fake.on('GET', '/sites', () =>
    vendorPage('sites', [vendorSite('SITE-1', ['BAT-1', 'BAT-2', 'BAT-3'])]),
  );
  for (const device of ['BAT-1', 'BAT-2', 'BAT-3'])
    fake.on('POST', `/device/${device}/commands`, (_request, reply) => {
      const next = submitScript.shift();
      if (next) {
        if (next.retryAfter) reply.header('retry-after', next.retryAfter);
        return reply.code(next.status).send(vendorError('TOO_MANY_REQUESTS', 'slow down'));
      }
      return reply
        .code(202)
        .send({ id: `cmd_${++serial}`, message: 'accepted', timestamp: '2026-05-01T10:00:00Z' });
    });
  for (let i = 0; i <= 20; i += 1)
    fake.on('PUT', `/devices/BAT-1/commands/cmd_${i}/cancel`, () => ({
      message: 'Command cancelled',
      commandId: `cmd_${i}`,
      timestamp: '2026-05-01T10:00:00Z',
    }));
}

async function signInAs(app: FastifyInstance, operatorName: string): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/session',
    headers: CSRF,
    payload: { region: 'eu', clientId: 'client', clientSecret: 'secret', operatorName },
  });
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.body}`);
  return cookieHeader(response);
}

describe.each(DATABASE_KINDS)(
  'the write path through the budget on %s',
  { timeout: 60_000 },
  (kind) => {
    let fake: FakeUpstream;
    let testDb: TestDatabase;
    let database: DatabaseHandle;
    let bff: TestBff;
    let ada: string;

    const build = async (nowMs = T0) => {
      bff = await buildTestBff(fake, {
        database,
        deviceCallsPerMinute: { eu: 2, au: 2 },
        // One key for every instance, as SESSION_KEY or a shared DATA_DIR gives in production:
        // a restarted BFF opens the sealed sign-in of a change queued before.
        sessionKey: Buffer.alloc(32, 7).toString('base64'),
        testing: {
          changeQueue: { pollingIntervalSeconds: 0.5, recheckIntervalMs: 100 },
          changeSettleWaitMs: 5_000,
        },
      });
      bff.clock.nowMs = nowMs;
      await bff.app.changeQueueStarted();
      ada = await signInAs(bff.app, 'Ada');
    };

    beforeAll(async () => {
      ({ fake, testDb, database } = await startFakeAndDatabase(kind, programFake));
    }, 90_000);
    afterAll(() => stopFakeAndDatabase(fake, testDb));
    beforeEach(async () => {
      await emptyBffTables(database, [
        'ledger_entries',
        'queued_change_devices',
        'queued_changes',
        // The budget and the read model too: each test starts at version 0 of its devices.
        ...DEVICE_TABLES,
      ]);
      fake.seen.length = 0;
      submitScript = [];
      await build();
      return () => bff.app.close();
    });

    const submit = (
      cookie: string,
      key: string,
      body = command(100),
      device = 'BAT-1',
      headers = {},
    ) =>
      bff.app.inject({
        method: 'POST',
        url: `/api/devices/${device}/commands`,
        headers: { cookie, ...CSRF, 'idempotency-key': key, ...headers },
        payload: body,
      });
    const changeOf = async (changeId: string): Promise<QueuedChangeStatus> => {
      const response = await bff.app.inject({
        method: 'GET',
        url: `/api/changes/${changeId}`,
        headers: { cookie: ada },
      });
      expect(response.statusCode).toBe(200);
      return QueuedChangeStatusSchema.parse(response.json());
    };
    /**
     * Moves the upstream clock, wakes the queue, and reads the change until `done` holds. A change
     * still queued for a later time has the clock moved on to it: the read model's read of a
     * device takes one of its calls when it runs, which on a loaded machine can be after the
     * clock moved, and then the change is planned a minute later.
     */
    const advanceUntil = async (
      ms: number,
      changeId: string,
      done: (change: QueuedChangeStatus) => boolean,
    ) => {
      bff.clock.nowMs += ms;
      await bff.app.changeQueue.recheck();
      for (let i = 0; i < 100; i += 1) {
        const change = await changeOf(changeId);
        if (done(change)) return change;
        const goesAtMs = change.state === 'queued' && change.goesAt ? Date.parse(change.goesAt) : 0;
        if (goesAtMs > bff.clock.nowMs) {
          bff.clock.nowMs = goesAtMs;
          await bff.app.changeQueue.recheck();
        }
        await sleep(50);
      }
      throw new Error(
        `change ${changeId} did not get there: ${JSON.stringify(await changeOf(changeId))}`,
      );
    };
    const calls = (method: string, path?: string) =>
      fake.seen.filter((s) => s.method === method && (!path || s.url.split('?')[0] === path))
        .length;

    it('grants while the device has calls, queues the third, and sends it once at its slot', async () => {
      expect((await submit(ada, 'k1', command(1))).statusCode).toBe(202);
      bff.clock.nowMs += 10_000;
      const second = await submit(ada, 'k2', command(2, 120));
      expect(second.json()).toHaveProperty('id');
      const third = await submit(ada, 'k3', command(3, 180));
      expect(third.statusCode).toBe(202);
      const { queued } = QueuedAnswerSchema.parse(third.json());
      // The first call's slot frees a minute after it was answered.
      expect(queued.goesAt).toBe(new Date(T0 + MINUTE).toISOString());
      expect(queued.reason).toBe('no_slot');
      expect(calls('POST')).toBe(2);

      // The same request again while it waits: where it stands, nothing sent.
      const again = await submit(ada, 'k3', command(3, 180));
      expect(QueuedAnswerSchema.parse(again.json()).queued.changeId).toBe(queued.changeId);
      const list = QueuedChangePageSchema.parse(
        (
          await bff.app.inject({
            method: 'GET',
            url: '/api/changes?waiting=true',
            headers: { cookie: ada },
          })
        ).json(),
      );
      expect(list.changes.map((c) => c.id)).toEqual([queued.changeId]);
      expect(list.changes[0]).toMatchObject({
        kind: 'submit',
        deviceIds: ['BAT-1'],
        madeBy: 'Ada',
      });

      const sent = await advanceUntil(50_000, queued.changeId, (c) => c.state === 'sent');
      expect(sent.steps[0]?.answer?.status).toBe(202);
      await bff.app.changeQueue.recheck();
      expect(calls('POST')).toBe(3);
      // The browser's retry of its key now gets the ledger's answer, replayed.
      const replay = await submit(ada, 'k3', command(3, 180));
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json()).toHaveProperty('id');
      expect(calls('POST')).toBe(3);
    });

    it("forgets the queued changes with the upstream's reset: none is sent to the fresh account", async () => {
      expect((await submit(ada, 'f1', command(1))).statusCode).toBe(202);
      expect((await submit(ada, 'f2', command(2, 120))).statusCode).toBe(202);
      const third = await submit(ada, 'f3', command(3, 180));
      expect(QueuedAnswerSchema.safeParse(third.json()).success).toBe(true);
      const waiting = async () =>
        QueuedChangePageSchema.parse(
          (
            await bff.app.inject({
              method: 'GET',
              url: '/api/changes?waiting=true',
              headers: { cookie: ada },
            })
          ).json(),
        ).changes;
      expect(await waiting()).toHaveLength(1);

      await bff.app.forgetUpstream();
      expect(await waiting()).toEqual([]);
      bff.clock.nowMs += 2 * MINUTE;
      await bff.app.changeQueue.recheck();
      await sleep(300);
      expect(calls('POST')).toBe(2);
    });

    it('withdraws a queued change before it is sent, and says when it can no longer be', async () => {
      await submit(ada, 'k1', command(1));
      await submit(ada, 'k2', command(2, 120));
      const { queued } = QueuedAnswerSchema.parse(
        (await submit(ada, 'k3', command(3, 180))).json(),
      );
      const bea = await signInAs(bff.app, 'Bea');
      const withdraw = () =>
        bff.app.inject({
          method: 'DELETE',
          url: `/api/changes/${queued.changeId}`,
          headers: { cookie: bea, ...CSRF },
        });
      const withdrawn = await withdraw();
      expect(withdrawn.statusCode).toBe(200);
      expect(withdrawn.json().change).toMatchObject({ state: 'withdrawn' });
      const change = await advanceUntil(
        2 * MINUTE,
        queued.changeId,
        (c) => c.state === 'withdrawn',
      );
      expect(change.outcome?.detail).toContain('Withdrawn by Bea');
      expect(calls('POST')).toBe(2);
      const late = await withdraw();
      expect(late.statusCode).toBe(409);
      expect(late.json().code).toBe('change_not_withdrawable');
      // Ada is told that Bea withdrew her change.
      const inbox = await bff.app.inject({
        method: 'GET',
        url: '/api/notifications',
        headers: { cookie: ada },
      });
      expect(JSON.stringify(inbox.json())).toContain('withdrawn');
    });

    it('queues a change the vendor answers 429 for, without retrying it, and sends it after Retry-After', async () => {
      submitScript = [{ status: 429, retryAfter: '30' }];
      const limited = await submit(ada, 'k1', command(1));
      expect(limited.statusCode).toBe(202);
      const { queued } = QueuedAnswerSchema.parse(limited.json());
      expect(queued.reason).toBe('device_busy');
      expect(queued.goesAt).toBe(new Date(T0 + 30_000).toISOString());
      expect(calls('POST')).toBe(1);
      const early = await advanceUntil(10_000, queued.changeId, (c) => c.state === 'queued');
      expect(early.state).toBe('queued');
      expect(calls('POST')).toBe(1);
      await advanceUntil(20_000, queued.changeId, (c) => c.state === 'sent');
      expect(calls('POST')).toBe(2);
      const ledger = LedgerPageSchema.parse(
        (
          await bff.app.inject({ method: 'GET', url: '/api/ledger', headers: { cookie: ada } })
        ).json(),
      );
      // One entry for the one intent, completed by the queued try under the same key.
      expect(ledger.entries.map((e) => [e.kind, e.state])).toEqual([['submit', 'succeeded']]);
    });

    const change = (cookie: string, key: string, body: object, headers = {}) =>
      bff.app.inject({
        method: 'POST',
        url: '/api/devices/BAT-1/changes',
        headers: { cookie, ...CSRF, 'idempotency-key': key, ...headers },
        payload: body,
      });

    it('refuses a replace on a device with one call left when the window is too near, before anything is sent', async () => {
      const first = await submit(ada, 'k1', command(1));
      expect(first.statusCode).toBe(202);
      // Cancel and submit together when the first call frees at +60 s: a window starting at
      // +150 s would need its last call by +30 s.
      const tooNear = { powerControl: { targetBatteryPowerW: 5 }, ...window(2.5) };
      const refused = await change(ada, 'r1', {
        kind: 'replace',
        commandId: first.json().id,
        command: tooNear,
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        code: 'budget_too_tight',
        details: {
          deviceIds: ['BAT-1'],
          lastCallAt: new Date(T0 + MINUTE).toISOString(),
          earliestStart: new Date(T0 + 3 * MINUTE).toISOString(),
          limit: 2,
          windowSeconds: 60,
        },
      });
      expect(refused.json().detail).toContain('12:01:00 site time');
      expect(calls('PUT')).toBe(0);
      expect(calls('POST')).toBe(1);
    });

    it('queues a replace with time to spare, holding its cancel until its submission can follow at once', async () => {
      const first = await submit(ada, 'k1', command(1));
      expect(first.statusCode).toBe(202);
      const next = command(7, 30);
      const answer = await change(ada, 'r2', {
        kind: 'replace',
        commandId: first.json().id,
        command: next,
      });
      expect(answer.statusCode).toBe(202);
      const body = DeviceChangeAnswerSchema.parse(answer.json());
      // One call is left now, but the cancel waits for the submission: the old window stays.
      expect(body.change.steps.map((s) => [s.call, s.state])).toEqual([
        ['cancel', 'waiting'],
        ['submit', 'waiting'],
      ]);
      expect(body.queued?.goesAt).toBe(new Date(T0 + MINUTE).toISOString());
      expect(calls('PUT')).toBe(0);
      const sent = await advanceUntil(MINUTE, body.change.id, (c) => c.state === 'sent');
      expect(sent.steps.map((s) => s.idempotencyKey)).toEqual(['r2/1', 'r2/2']);
      expect(calls('PUT')).toBe(1);
      expect(calls('POST')).toBe(2);

      // Its undo names the submission's key and restores the old window, both steps linked to it.
      bff.clock.nowMs += MINUTE;
      const undo = await change(ada, 'u1', {
        kind: 'undoReplace',
        undoOf: 'r2/2',
        commandId: (sent.steps[1]?.answer?.body as { id: string }).id,
        command: command(1),
      });
      const undoAnswer = DeviceChangeAnswerSchema.parse(undo.json());
      // A read of the device may take one of its two calls first: the undo then waits, whole.
      const undone =
        undoAnswer.change.state === 'sent'
          ? undoAnswer.change
          : await advanceUntil(MINUTE, undoAnswer.change.id, (c) => c.state === 'sent');
      expect((undone.steps[1]?.answer?.body as { id: string }).id).toMatch(/^cmd_/);
      const ledger = LedgerPageSchema.parse(
        (
          await bff.app.inject({ method: 'GET', url: '/api/ledger', headers: { cookie: ada } })
        ).json(),
      );
      const undoEntries = ledger.entries.filter((e) => e.undoOf);
      expect(undoEntries).toHaveLength(2);
    });

    it('sends a replace at once when the device has both calls, and answers the new command', async () => {
      const answer = await change(ada, 'r3', {
        kind: 'replace',
        commandId: 'cmd_0',
        command: command(9, 30),
      });
      expect(answer.statusCode).toBe(200);
      const body = DeviceChangeAnswerSchema.parse(answer.json());
      expect(body.cancelled?.commandId).toBe('cmd_0');
      expect(body.submitted?.id).toMatch(/^cmd_/);
      expect(body.queued).toBeUndefined();
    });

    it('refuses a change made against an older version when another person changed the device', async () => {
      // Two people of one account look at BAT-1 at version 0; Ada adds a command (version 1).
      const bea = await signInAs(bff.app, 'Bea');
      expect((await submit(ada, 'a1', command(4, 200))).statusCode).toBe(202);
      const stale = await submit(bea, 'b1', command(5, 300), 'BAT-1', {
        'powerdeck-device-version': '0',
      });
      expect(stale.statusCode).toBe(409);
      const added = (
        await bff.app.inject({ method: 'GET', url: '/api/ledger', headers: { cookie: ada } })
      ).json().entries[0].commandId;
      expect(stale.json()).toMatchObject({
        code: 'device_changed',
        details: {
          deviceId: 'BAT-1',
          sinceVersion: 0,
          version: 1,
          changes: [{ kind: 'commandAdded', commandId: added, madeBy: 'Ada' }],
        },
      });
      expect(stale.json().detail).toContain(
        `command ${added} was added by Ada for 15:20:00 site time`,
      );
      expect(calls('POST')).toBe(1);
      // Her own change does not make Ada's view stale; Bea at the version now goes through (a
      // minute on, when BAT-1 has calls again).
      const own = await submit(ada, 'a2', command(6, 400), 'BAT-1', {
        'powerdeck-device-version': '0',
      });
      expect(own.statusCode).toBe(202);
      bff.clock.nowMs += MINUTE;
      const fresh = await submit(bea, 'b2', command(5, 300), 'BAT-1', {
        'powerdeck-device-version': '2',
      });
      expect(fresh.statusCode).toBe(202);
      expect(calls('POST')).toBe(3);
    });

    it('keeps a queued change across a restart of the BFF on the same database, and sends it once', async () => {
      await submit(ada, 'k1', command(1));
      await submit(ada, 'k2', command(2, 120));
      const { queued } = QueuedAnswerSchema.parse(
        (await submit(ada, 'k3', command(3, 180))).json(),
      );
      const nowMs = bff.clock.nowMs;
      await bff.app.close();
      await build(nowMs);
      const sent = await advanceUntil(MINUTE, queued.changeId, (c) => c.state === 'sent');
      expect(sent.steps[0]?.answer?.status).toBe(202);
      expect(calls('POST')).toBe(3);
    });

    it('asked to go only at once, refuses a replace that would wait, queueing and sending nothing', async () => {
      const first = await submit(ada, 'k1', command(1));
      expect(first.statusCode).toBe(202);
      const refused = await bff.app.inject({
        method: 'POST',
        url: '/api/devices/BAT-1/changes?ifLater=refuse',
        headers: { cookie: ada, ...CSRF, 'idempotency-key': 'r4' },
        payload: { kind: 'replace', commandId: first.json().id, command: command(7, 30) },
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        code: 'change_would_wait',
        details: { deviceIds: ['BAT-1'], goesAt: new Date(T0 + MINUTE).toISOString() },
      });
      expect(refused.json().detail).toContain('12:01:00 site time');
      const changes = await bff.app.inject({
        method: 'GET',
        url: '/api/changes',
        headers: { cookie: ada },
      });
      expect(changes.json()).toEqual({ changes: [] });
      expect(calls('PUT')).toBe(0);
      expect(calls('POST')).toBe(1);
    });
  },
);
