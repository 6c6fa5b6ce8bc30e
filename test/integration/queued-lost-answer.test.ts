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
import { HistoryResponseSchema } from '../../src/domain/history.ts';
import {
  QueuedAnswerSchema,
  QueuedChangeStatusSchema,
  type QueuedChangeStatus,
} from '../../src/domain/queued-change.ts';
import { queuedChanges } from '../../src/server/db/schema.ts';
import { changeRowOf } from '../../src/server/budget/queued-change-rows.ts';
import type { RelayAction } from '../support/flaky-relay.ts';
import type { BrowserClient } from '../support/http-client.ts';
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
      // The ledger's lease runs on the BFF's own clock, real time here: a short one.
      ledgerLeaseMs: 300,
      readModelTickMs: 0,
      changeQueue: { recheckIntervalMs: 200 },
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
  await stack.bff.readModel?.reads.runDue();
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

function submit(body: ReturnType<typeof submission>) {
  return browser.request({
    method: 'POST',
    path: `/api/devices/${DEVICE}/commands`,
    json: body,
    headers: { 'idempotency-key': `"${randomUUID()}"` },
  });
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

  const seen: QueuedChangeStatus[] = [];
  const untilMs = Date.now() + FOLLOW_MS;
  let status: QueuedChangeStatus | undefined;
  while (Date.now() < untilMs) {
    status = QueuedChangeStatusSchema.parse((await browser.get(`/api/changes/${changeId}`)).json());
    seen.push(status);
    if (!['queued', 'sending'].includes(status.state)) break;
    const waitMs = status.goesAt ? Date.parse(status.goesAt) - (await stack.admin.nowMs()) : 0;
    if (waitMs > 0) await stack.admin.advanceClock(waitMs);
    else await sleep(100);
  }
  const lostCall = calls.find((call) => call.action === lost);
  if (!lostCall)
    throw new Error(
      `the relay never met the change's submission: ${JSON.stringify({ calls, status })}`,
    );
  return { changeId, body, seen, final: status, lostCall };
}

/** The commands the vendor holds for `body`'s window and power. */
async function vendorCommandsOf(body: ReturnType<typeof submission>): Promise<string[]> {
  return (await stack.vendorHistory(DEVICE, body))
    .filter((c) => c.powerControl.targetBatteryPowerW === body.powerControl.targetBatteryPowerW)
    .map((c) => c.id);
}

/** The device's commands as the BFF's device view lists them (its read model). */
async function listedCommandIds(body: ReturnType<typeof submission>): Promise<string[]> {
  const answer = await browser.get(
    `/api/devices/${DEVICE}/commands?startTime=${body.startTime}&endTime=${body.endTime}`,
  );
  expect(answer.status).toBe(200);
  return HistoryResponseSchema.parse(answer.json()).commands.map((c) => c.id);
}

function commandIdOf(status: QueuedChangeStatus | undefined): string | undefined {
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
