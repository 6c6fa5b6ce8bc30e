/**
 * The device budget on a slow wire (docs/decisions/007-device-call-budget.md, section 1), BFF +
 * sandbox over real HTTP, the BFF on the sandbox's clock: the vendor counts a call when it
 * arrives, so a slot must be held until a window after the latest moment its call could have
 * arrived, not a window after it was taken. A call still on its way may not give its slot to a
 * third call of the device's rolling minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { SubmissionResponseSchema } from '#domain/command.ts';
import {
  QueuedAnswerSchema,
  QueuedChangeStatusSchema,
  type QueuedChangeStatus,
} from '#domain/queued-change.ts';
import { seededRandom } from '#sandbox/fixtures/seeded-random.ts';
import type { BrowserClient, TestResponse } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const DEVICE = 'BAT-EU-001-A';
const DEVICES = ['BAT-EU-001-A', 'BAT-EU-001-B', 'BAT-EU-001-C'];
const SUBMIT_ROUTE = 'eu POST /device/:deviceId/commands';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    followSandboxClock: true,
    bff: {
      testing: {
        // The read model reads when the test says, so the only calls of the device are the test's.
        readModelTickMs: 0,
        // The queue looks for due changes every 100 ms of real time: 1 s of the sandbox clock at
        // the long case's rate, as often as the BFF looks on the wall clock (default 1 s), so a
        // queued change goes when its slot comes rather than seconds of the sandbox clock later.
        changeQueue: { pollingIntervalSeconds: 0.5, recheckIntervalMs: 100 },
      },
    },
  });
});
afterAll(() => stack?.close());

interface Stats {
  byRoute: Record<string, number>;
  byDevice: Record<string, { calls: number; refused: number }>;
}
const stats = async () => (await stack.admin.stats()) as unknown as Stats;

describe('a call slow on its way in keeps its slot', () => {
  it('a first submission arriving 3 s late, after a later one and a minute on the sandbox clock: the vendor never sees a third call in its minute', async () => {
    await stack.admin.reset();
    await stack.forgetUpstream();
    const browser: BrowserClient = stack.browser();
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
    // The bound site's devices are read once; their calls leave the window before the test's.
    await stack.bff.readModel?.reads.runDue();
    await stack.admin.advanceClock(2 * MINUTE_MS);

    const baseMs = Math.ceil((await stack.admin.nowMs()) / MINUTE_MS) * MINUTE_MS + 90 * MINUTE_MS;
    const submit = (index: number) =>
      browser.post(`/api/devices/${DEVICE}/commands`, {
        powerControl: { targetBatteryPowerW: 100 + index },
        startTime: new Date(baseMs + index * 20 * MINUTE_MS).toISOString(),
        endTime: new Date(baseMs + (index * 20 + 10) * MINUTE_MS).toISOString(),
      });
    const submitsAsked = async () => (await stats()).byRoute[SUBMIT_ROUTE] ?? 0;

    // The first submission is 3 s on its way in: the sandbox holds it before counting it.
    await stack.admin.setFaults({ latencyMs: 3_000 });
    const before = await submitsAsked();
    const first = submit(0);
    while ((await submitsAsked()) === before) await sleep(20);
    // Later calls are fast; the first one is on the wire still.
    await stack.admin.setFaults({});

    // A second submission 10 s later on the sandbox clock, sent at once.
    await stack.admin.advanceClock(10_000);
    const second = await submit(1);
    expect(second.status).toBe(202);
    expect(SubmissionResponseSchema.safeParse(second.json()).success).toBe(true);

    // A minute after the first was sent: its call has not arrived yet, so its slot is not free.
    await stack.admin.advanceClock(MINUTE_MS - 10_000 + 500);
    const third = await submit(2);
    expect(third.status).toBe(202);
    const queued = QueuedAnswerSchema.safeParse(third.json());

    // The first arrives now, within a minute of the second (and of the third, had it gone).
    // Sent, not refused by the vendor's limit and queued again.
    const firstAnswer = await first;
    expect(firstAnswer.status).toBe(202);
    expect(firstAnswer.json()).not.toHaveProperty('queued');
    expect(SubmissionResponseSchema.safeParse(firstAnswer.json()).success).toBe(true);

    // The third waited for a slot and went once the sandbox clock reached it.
    expect(queued.success).toBe(true);
    if (queued.success) {
      const changePath = `/api/changes/${queued.data.queued.changeId}`;
      for (let round = 0; round < 50; round += 1) {
        const status = QueuedChangeStatusSchema.parse((await browser.get(changePath)).json());
        if (!['queued', 'sending'].includes(status.state)) {
          expect(status.state).toBe('sent');
          break;
        }
        const waitMs = status.goesAt ? Date.parse(status.goesAt) - (await stack.admin.nowMs()) : 0;
        if (waitMs > 0) await stack.admin.advanceClock(waitMs);
        else await sleep(100);
      }
    }

    // What the vendor counted: three submissions of the device, each once, and no call of the
    // device (the read model's reads included) refused for its limit.
    const counted = await stats();
    expect(counted.byRoute[SUBMIT_ROUTE]).toBe(3);
    expect(counted.byDevice[`eu ${DEVICE}`]).toMatchObject({ refused: 0 });
  }, 30_000);
});

const SESSIONS = 10;
/** Changes each session makes at most: about what the devices' budget carries in the run. */
const CHANGES_PER_SESSION = 2;
const RUN_MS = 5 * MINUTE_MS;
/**
 * The sandbox clock runs 10 times real time, moved every 250 ms: a wait of 3 s on the wire is 30 s
 * of it, within the window a call on its way is held for.
 */
const CLOCK_RATE = 10;
const CLOCK_EVERY_MS = 250;
/** How long the queued changes are followed to their end, ms of real time. */
const FOLLOW_MS = 60_000;

/** What came of one change a session made. */
interface Made {
  session: number;
  action: 'submit' | 'cancel' | 'replace' | 'batch';
  answer: TestResponse;
  queuedId?: string;
  end?: QueuedChangeStatus;
  withdrawAsked?: boolean;
}

// Bounded: 10 sessions of at most 2 changes, 5 sandbox minutes at 10 times real time, the
// follow-up at most 60 s; seeded choices and waits. The time limit guards a loaded machine.
describe('ten sessions over a slow wire for five sandbox minutes', () => {
  it('submits, cancels, replaces, batches and withdrawals under 0.3-3 s of jittered latency: no device sees a third call in a rolling minute, the vendor answers no 429, and every change ends sent, refused with a reason, or withdrawn', async () => {
    await stack.admin.reset();
    await stack.forgetUpstream();
    const sessions: BrowserClient[] = [];
    for (let i = 0; i < SESSIONS; i += 1) {
      const browser = stack.browser();
      expect((await browser.signIn(DEMO_EU)).status).toBe(200);
      sessions.push(browser);
    }
    expect(
      (await (sessions[0] as BrowserClient).post('/api/sites', { siteId: 'PLANT-EU-001' })).status,
    ).toBe(201);
    await stack.bff.readModel?.reads.runDue();
    await stack.admin.advanceClock(2 * MINUTE_MS);
    const baseMs = Math.ceil((await stack.admin.nowMs()) / MINUTE_MS) * MINUTE_MS + 180 * MINUTE_MS;
    let windows = 0;
    /** A window of its own for each change: the vendor refuses overlapping ones. */
    const command = (powerW: number) => {
      const startMs = baseMs + windows++ * 20 * MINUTE_MS;
      return {
        powerControl: { targetBatteryPowerW: powerW },
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(startMs + 10 * MINUTE_MS).toISOString(),
      };
    };

    await stack.admin.setFaults({ latencyMs: 300, latencyJitterMs: 2_700, latencySeed: 'slow' });
    const startMs = await stack.admin.nowMs();
    let running = true;
    const realStartMs = Date.now();
    const clock = (async () => {
      // The sandbox clock follows real time by itself: moved by the rest of the rate.
      for (let lastMs = Date.now(); running;) {
        await sleep(CLOCK_EVERY_MS);
        const nowMs = Date.now();
        await stack.admin.advanceClock(Math.round((nowMs - lastMs) * (CLOCK_RATE - 1)));
        lastMs = nowMs;
      }
    })();

    const made: Made[] = [];
    const runSession = async (session: number) => {
      const browser = sessions[session] as BrowserClient;
      const random = seededRandom(`session ${session}`);
      const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
      /** Commands this session's submissions made: [device, command]. */
      const sent: [string, string][] = [];
      for (let change = 0; change < CHANGES_PER_SESSION; change += 1) {
        // Each session's changes spread over the run: the k-th somewhere in its k-th share.
        const atMs = startMs + ((change + random()) * RUN_MS) / CHANGES_PER_SESSION;
        while ((await stack.admin.nowMs()) < atMs) await sleep(50);
        const draw = random();
        const target = sent.length > 0 ? pick(sent) : undefined;
        let entry: Made;
        if (target && draw < 0.25) {
          const [deviceId, commandId] = target;
          sent.splice(sent.indexOf(target), 1);
          entry = {
            session,
            action: 'cancel',
            answer: await browser.put(`/api/devices/${deviceId}/commands/${commandId}/cancel`),
          };
        } else if (target && draw < 0.6) {
          const [deviceId, commandId] = target;
          sent.splice(sent.indexOf(target), 1);
          entry = {
            session,
            action: 'replace',
            answer: await browser.post(`/api/devices/${deviceId}/changes`, {
              kind: 'replace',
              commandId,
              command: command(200 + session),
            }),
          };
        } else if (draw > 0.8) {
          const first = pick(DEVICES);
          const second = pick(DEVICES.filter((id) => id !== first));
          entry = {
            session,
            action: 'batch',
            answer: await browser.post('/api/batches', {
              devices: [first, second],
              command: command(300 + session),
            }),
          };
        } else {
          const deviceId = pick(DEVICES);
          const answer = await browser.post(
            `/api/devices/${deviceId}/commands`,
            command(100 + session),
          );
          const submission = SubmissionResponseSchema.safeParse(answer.json());
          if (answer.status === 202 && submission.success)
            sent.push([deviceId, submission.data.id]);
          entry = { session, action: 'submit', answer };
        }
        const queued = QueuedAnswerSchema.safeParse(entry.answer.json());
        if (entry.answer.status === 202 && queued.success) {
          entry.queuedId = queued.data.queued.changeId;
          // Now and then the operator thinks better of a change that waits.
          if (random() < 0.2) {
            entry.withdrawAsked = true;
            await browser.delete(`/api/changes/${entry.queuedId}`);
          }
        }
        made.push(entry);
      }
    };
    let madeAfterMs: number | undefined;
    try {
      await Promise.all(sessions.map((_, session) => runSession(session)));
      madeAfterMs = Date.now() - realStartMs;
    } finally {
      running = false;
      await clock;
    }
    // The wire is fast again; the changes still waiting go as the clock reaches them, moved to
    // the first that waits until none does.
    await stack.admin.setFaults({});
    const followUntilMs = Date.now() + FOLLOW_MS;
    const last = new Map<string, QueuedChangeStatus>();
    for (;;) {
      const waiting = made.filter((entry) => entry.queuedId && !entry.end);
      if (waiting.length === 0 || Date.now() > followUntilMs) break;
      let nextMs = Infinity;
      for (const entry of waiting) {
        const browser = sessions[entry.session] as BrowserClient;
        const status = QueuedChangeStatusSchema.parse(
          (await browser.get(`/api/changes/${entry.queuedId}`)).json(),
        );
        last.set(status.id, status);
        if (!['queued', 'sending'].includes(status.state)) entry.end = status;
        else if (status.goesAt) nextMs = Math.min(nextMs, Date.parse(status.goesAt));
      }
      const waitMs = nextMs - (await stack.admin.nowMs());
      if (Number.isFinite(waitMs) && waitMs > 0) await stack.admin.advanceClock(waitMs);
      else await sleep(200);
    }

    const counted = await stats();
    const ends = made.map((entry) => {
      if (entry.queuedId) {
        const end = entry.end;
        if (!end) return `still waiting: ${JSON.stringify(last.get(entry.queuedId))}`;
        if (end.state === 'failed')
          return end.outcome && JSON.stringify(end.outcome).length > 0 ? 'refused' : 'failed';
        return end.state;
      }
      const { status } = entry.answer;
      if (status >= 200 && status < 300) return 'sent';
      const detail = (entry.answer.json() as { detail?: unknown }).detail;
      if (status >= 400 && status < 500 && status !== 429 && typeof detail === 'string' && detail)
        return 'refused';
      return `answered ${status}`;
    });
    const tally = Object.fromEntries(
      [...new Set(ends)].map((end) => [end, ends.filter((e) => e === end).length]),
    );
    const byAction = Object.fromEntries(
      (['submit', 'cancel', 'replace', 'batch'] as const).map((action) => [
        action,
        made.filter((entry) => entry.action === action).length,
      ]),
    );
    console.info(
      `slow wire report ${JSON.stringify({ madeAfterMs, followedMs: Date.now() - realStartMs - (madeAfterMs ?? 0), sandboxMinutes: ((await stack.admin.nowMs()) - startMs) / MINUTE_MS, changes: made.length, byAction, ends: tally, withdrawAsked: made.filter((e) => e.withdrawAsked).length, vendor: counted.byDevice })}`,
    );

    // Every change ended: sent, refused with a reason, or withdrawn.
    expect(ends.filter((end) => !['sent', 'refused', 'withdrawn'].includes(end))).toEqual([]);
    // The vendor counted every call of a device as it arrived and refused none for its limit:
    // no device ever saw a third call in a rolling minute, and no 429 was answered.
    for (const deviceId of DEVICES)
      expect(counted.byDevice[`eu ${deviceId}`]).toMatchObject({ refused: 0 });
    expect(made.filter((entry) => entry.answer.status === 429)).toEqual([]);
    expect(made.length).toBeGreaterThanOrEqual(SESSIONS);
  }, 150_000);
});
