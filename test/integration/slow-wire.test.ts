/**
 * The device budget on a slow wire (docs/decisions/007-device-call-budget.md, section 1), BFF +
 * sandbox over real HTTP, the BFF on the sandbox's clock: the vendor counts a call when it
 * arrives, so a slot must be held until a window after the latest moment its call could have
 * arrived, not a window after it was taken. A call still on its way may not give its slot to a
 * third call of the device's rolling minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { SubmissionResponseSchema } from '../../src/domain/command.ts';
import { QueuedAnswerSchema, QueuedChangeStatusSchema } from '../../src/domain/queued-change.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const DEVICE = 'BAT-EU-001-A';
const SUBMIT_ROUTE = 'eu POST /device/:deviceId/commands';

let stack: Stack;

beforeAll(async () => {
  // The read model reads when the test says, so the only calls of the device are the test's.
  stack = await startStack({ followSandboxClock: true, bff: { readModelTickMs: 0 } });
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
