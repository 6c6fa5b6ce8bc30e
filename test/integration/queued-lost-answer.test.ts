/**
 * A queued change whose answer was lost on the wire, BFF + sandbox over real HTTP with the
 * vendor's 2 calls per device per minute on both sides and the BFF on the sandbox's clock
 * (docs/decisions/007-device-call-budget.md, sections 1 and 2; docs/architecture.md, Ledger). A
 * relay between them drops the answer to the change's submission after the vendor acted on it
 * (or drops the request before the vendor saw it). The change's next try must read the device's
 * history to settle the unknown outcome, and that read goes at the device's next free call, in
 * the change's place: the change is found sent (or, not carried out, sent again exactly once),
 * never reported "not sent" while its outcome is unknown, and no try is counted against it for
 * a wait of its own making. The test moves the sandbox clock, never sleeps a minute.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HistoryResponseSchema } from '#domain/history.ts';
import {
  QueuedAnswerSchema,
  QueuedChangeStatusSchema,
  type QueuedChangeStatus,
} from '#domain/queued-change.ts';
import { queuedChanges } from '#server/db/schema.ts';
import { changeRowOf } from '#server/budget/queued-change-rows.ts';
import type { RelayAction } from '../support/flaky-relay.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { seededRandom } from '#sandbox/fixtures/seeded-random.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const DEVICE = 'BAT-EU-001-A';
/** How long a change is followed, ms of real time (the queue looks each second). */
const FOLLOW_MS = 30_000;

/** One vendor call about the device, as the relay saw it, on the sandbox's clock. */
interface DeviceCall {
  method: string;
  atMs: number;
  action: RelayAction;
}

let stack: Stack;
let browser: BrowserClient;
let calls: DeviceCall[];
/** What the relay does with the device's next submission; then it passes again. */
let nextSubmission: RelayAction | undefined;
/** How many cases have queued their change. */
let round = 0;

beforeAll(async () => {
  stack = await startStack({
    relay: true,
    followSandboxClock: true,
    bff: {
      testing: {
        // The ledger's lease runs on the BFF's own clock, real time here: a short one.
        ledgerLeaseMs: 300,
        readModelTickMs: 0,
        changeQueue: { recheckIntervalMs: 200 },
      },
    },
  });
});
afterAll(() => stack?.close());

beforeEach(async () => {
  await stack.admin.reset();
  await stack.forgetUpstream();
  browser = stack.browser();
  expect((await browser.signIn(DEMO_EU)).status).toBe(200);
  expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
  await stack.bff.readModel.reads.runDue();
  calls = [];
  nextSubmission = undefined;
  const relay = stack.relay;
  if (!relay) throw new Error('the stack was started with a relay');
  relay.plan = (method, path) => {
    if (!path.includes(`/${DEVICE}/commands`)) return 'pass';
    let action: RelayAction = 'pass';
    if (method === 'POST' && nextSubmission) {
      action = nextSubmission;
      nextSubmission = undefined;
    }
    calls.push({ method, atMs: stack.sandbox.sandboxNow(), action });
    return action;
  };
});

/** A submission for the device, its window `offsetMinutes` after `baseMs`. */
function submission(baseMs: number, offsetMinutes: number, powerW: number) {
  return {
    powerControl: { targetBatteryPowerW: powerW },
    startTime: new Date(baseMs + offsetMinutes * MINUTE_MS).toISOString(),
    endTime: new Date(baseMs + (offsetMinutes + 20) * MINUTE_MS).toISOString(),
  };
}

function submit(body: ReturnType<typeof submission>, deviceId = DEVICE, key = randomUUID()) {
  return browser.request({
    method: 'POST',
    path: `/api/devices/${deviceId}/commands`,
    json: body,
    headers: { 'idempotency-key': `"${key}"` },
  });
}

/** Answers a browser sends again with the same key, as the SPA does. */
const TRANSIENT = new Set([409, 429, 502, 503, 504]);

/**
 * Submits like a browser that sends the same key again until it has a final answer: after a 429
 * at the device's next free call (the sandbox clock is moved there), after the other transient
 * answers once their `Retry-After` (at most a second) passed; at most 150 times. A retry of an
 * unknown outcome reads the device's history behind every change queued for it (decision 007),
 * so on a loaded machine one browser needed over 40 tries while the queue worked through them.
 */
async function submitUntilAnswered(body: ReturnType<typeof submission>, deviceId: string) {
  const key = randomUUID();
  for (let tries = 1; ; tries += 1) {
    const answer = await submit(body, deviceId, key);
    if (!TRANSIENT.has(answer.status) || tries >= 150) return answer;
    const retryAfterS = Number(answer.headers['retry-after'] ?? 0);
    if (answer.status === 429) await stack.admin.advanceClock(Math.max(1, retryAfterS) * 1000);
    else await sleep(Math.min(1000, Math.max(50, retryAfterS * 1000)));
  }
}

/** The change's step progress as the queue keeps it (tries counted against it). */
async function failuresOf(changeId: string): Promise<number> {
  const [row] = await stack.database.db
    .select()
    .from(queuedChanges)
    .where(eq(queuedChanges.id, changeId));
  if (!row) throw new Error(`no queued change ${changeId}`);
  return changeRowOf(row).steps.reduce((sum, step) => sum + (step.failures ?? 0), 0);
}

/**
 * Spends the device's calls of the minute until a submission is queued, whose call the relay
 * then treats with `lost`; follows the change until it ended, moving the sandbox clock to
 * each time it goes. Returns every status seen and the time the lost call was made.
 */
async function queueAndLose(lost: RelayAction) {
  const nowMs = await stack.admin.nowMs();
  // The sandbox's reset puts its clock back: each case's windows a day apart from the others',
  // so no case meets another's ledger entries.
  round += 1;
  const baseMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + (round * 24 * 60 + 120) * MINUTE_MS;
  // Submitted until one is queued: binding the site read the device once, so the first or
  // second submission finds the minute's calls spent.
  let queued: { changeId: string; body: ReturnType<typeof submission> } | undefined;
  for (let i = 0; i < 3 && !queued; i += 1) {
    const body = submission(baseMs, i * 30, 100 * (i + 1));
    const answer = await submit(body);
    expect(answer.status).toBe(202);
    const parsed = QueuedAnswerSchema.safeParse(answer.json());
    if (parsed.success) queued = { changeId: parsed.data.queued.changeId, body };
  }
  if (!queued) throw new Error('three submissions in a minute went at once: no budget in play');
  const { changeId, body } = queued;
  nextSubmission = lost;

  const { seen, final: status } = await follow(changeId);
  const lostCall = calls.find((call) => call.action === lost);
  if (!lostCall)
    throw new Error(
      `the relay never met the change's submission: ${JSON.stringify({ calls, status })}`,
    );
  return { changeId, body, seen, final: status, lostCall };
}

/**
 * Reads a queued change until it ended, moving the sandbox clock to each time it goes, for at most
 * {@link FOLLOW_MS}: every status seen, and the last.
 */
async function follow(changeId: string) {
  const seen: QueuedChangeStatus[] = [];
  const untilMs = Date.now() + FOLLOW_MS;
  let final: QueuedChangeStatus | undefined;
  while (Date.now() < untilMs) {
    final = QueuedChangeStatusSchema.parse((await browser.get(`/api/changes/${changeId}`)).json());
    seen.push(final);
    if (!['queued', 'sending'].includes(final.state)) break;
    const waitMs = final.goesAt ? Date.parse(final.goesAt) - (await stack.admin.nowMs()) : 0;
    if (waitMs > 0) await stack.admin.advanceClock(waitMs);
    else await sleep(100);
  }
  return { seen, final };
}

/** The commands the vendor holds for `body`'s window and power. */
async function vendorCommandsOf(
  body: ReturnType<typeof submission>,
  deviceId = DEVICE,
): Promise<string[]> {
  return (await stack.vendorHistory(deviceId, body))
    .filter((c) => c.powerControl.targetBatteryPowerW === body.powerControl.targetBatteryPowerW)
    .map((c) => c.id);
}

/** The device's commands as the BFF's device view lists them (its read model). */
async function listedCommandIds(
  body: ReturnType<typeof submission>,
  deviceId = DEVICE,
): Promise<string[]> {
  const answer = await browser.get(
    `/api/devices/${deviceId}/commands?startTime=${body.startTime}&endTime=${body.endTime}`,
  );
  expect(answer.status).toBe(200);
  return HistoryResponseSchema.parse(answer.json()).commands.map((c) => c.id);
}

function commandIdOf(status: QueuedChangeStatus | undefined): string | undefined {
  if (status?.state !== 'sent') return undefined;
  const body = status?.steps[0]?.answer?.body as { id?: unknown } | undefined;
  return typeof body?.id === 'string' ? body.id : undefined;
}

describe('a queued change whose answer was lost', () => {
  it('is settled by a read of the device history at its next free call: found sent, never "not sent", no try counted for its own wait', async () => {
    const { changeId, body, seen, final, lostCall } = await queueAndLose('resetAfter');

    // The read that settles it is the device's next vendor call, within the minute: the
    // device had a call free (the two spent a minute before have passed).
    const after = calls.filter((call) => call.atMs >= lostCall.atMs && call !== lostCall);
    expect(after[0]?.method).toBe('GET');
    expect((after[0]?.atMs ?? Infinity) - lostCall.atMs).toBeLessThan(MINUTE_MS);
    // Found sent: nothing was submitted again.
    expect(after.filter((call) => call.method === 'POST')).toEqual([]);
    expect(final?.state).toBe('sent');
    expect(seen.filter((s) => s.outcome?.failure === 'not_sent')).toEqual([]);
    const held = await vendorCommandsOf(body);
    expect(held).toHaveLength(1);
    expect(commandIdOf(final)).toBe(held[0]);
    expect(await listedCommandIds(body)).toContain(held[0]);
    // Only the lost answer counted as a failed try.
    expect(await failuresOf(changeId)).toBeLessThanOrEqual(1);
  }, 60_000);

  it('not carried out by the vendor: sent again exactly once, at the device next free call after the read', async () => {
    const { changeId, body, seen, final, lostCall } = await queueAndLose('resetBefore');

    const after = calls.filter((call) => call.atMs >= lostCall.atMs && call !== lostCall);
    expect(after[0]?.method).toBe('GET');
    expect((after[0]?.atMs ?? Infinity) - lostCall.atMs).toBeLessThan(MINUTE_MS);
    const resent = after.filter((call) => call.method === 'POST');
    expect(resent).toHaveLength(1);
    expect(final?.state).toBe('sent');
    expect(seen.filter((s) => s.outcome?.failure === 'not_sent')).toEqual([]);
    const held = await vendorCommandsOf(body);
    expect(held).toHaveLength(1);
    expect(commandIdOf(final)).toBe(held[0]);
    expect(await listedCommandIds(body)).toContain(held[0]);
    expect(await failuresOf(changeId)).toBeLessThanOrEqual(1);
  }, 60_000);
});

describe('a lossy wire with the budget on', () => {
  it('settles every change: four submissions on each of two devices, a seeded share of their calls and reads lost', async () => {
    const relay = stack.relay;
    if (!relay) throw new Error('the stack was started with a relay');
    // The wire drops a seeded share of the devices' submissions, after the vendor acted or before
    // it saw them, and of the history reads that settle them. The first submission of a device
    // goes at once, the others are queued behind it (two calls a minute, binding read each device
    // once), so queued changes lose answers too.
    const random = seededRandom('lossy wire');
    relay.plan = (method, path) => {
      if (!/\/device\/[^/]+\/commands/.test(path)) return 'pass';
      const roll = random();
      if (method === 'POST') return roll < 0.3 ? 'resetAfter' : roll < 0.4 ? 'resetBefore' : 'pass';
      return roll < 0.1 ? 'resetBefore' : 'pass';
    };
    round += 1;
    const nowMs = await stack.admin.nowMs();
    const baseMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + (round * 24 * 60 + 120) * MINUTE_MS;
    const all = ['BAT-EU-001-A', 'BAT-EU-001-B'].flatMap((deviceId, d) =>
      [0, 1, 2, 3].map((i) => ({
        deviceId,
        body: submission(baseMs, i * 30, 100 * (d * 4 + i + 1)),
      })),
    );
    const answers = await Promise.all(
      all.map(async ({ deviceId, body }) => {
        const answer = await submitUntilAnswered(body, deviceId);
        const queued = QueuedAnswerSchema.safeParse(answer.json());
        if (!queued.success) return { answer, commandId: answer.json<{ id?: string }>().id };
        const { seen, final } = await follow(queued.data.queued.changeId);
        return { answer, final, seen, commandId: commandIdOf(final) };
      }),
    );
    relay.plan = () => 'pass';
    expect(relay.resets).toBeGreaterThan(0);
    expect(answers.map((a) => a.answer.status)).toEqual(all.map(() => 202));
    const queued = answers.filter((a) => a.final);
    expect(queued.length).toBeGreaterThan(0);
    // Every queued change sent; none ever said "not sent" or ended unsettled.
    expect(queued.map((a) => [a.final?.state, a.final?.outcome])).toEqual(
      queued.map(() => ['sent', undefined]),
    );
    expect(queued.flatMap((a) => a.seen ?? []).filter((s) => s.outcome)).toEqual([]);
    // The vendor holds each change exactly once: the command the product answered, listed.
    for (const [i, { deviceId, body }] of all.entries()) {
      const held = await vendorCommandsOf(body, deviceId);
      expect(held).toEqual([answers[i]?.commandId]);
      expect(await listedCommandIds(body, deviceId)).toContain(held[0]);
    }
  }, 120_000);
});
