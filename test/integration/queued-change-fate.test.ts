/**
 * A queued change's fate told to the people it concerns (docs/decisions/007-device-call-budget.md,
 * sections 2 and 4), BFF + sandbox over real HTTP at the vendor's 2 calls per device and minute,
 * the BFF on the sandbox's clock: a submission queued because the device's calls were spent, then
 * refused by the vendor when it goes (another client of the account sent an overlapping command
 * straight to the vendor meanwhile), ends `failed` with the vendor's reason in words; an event of
 * its new state is pushed, the person who made it and everyone else of the account are notified,
 * and the ledger's entry gives the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerPageSchema } from '#domain/ledger.ts';
import { NotificationPageSchema } from '#domain/notifications.ts';
import {
  QueuedAnswerSchema,
  QueuedChangeStatusSchema,
  type QueuedAnswer,
} from '#domain/queued-change.ts';
import { openEventStream } from '#server/__tests__/support/event-stream-client.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, vendorSubmit, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const DEVICE = 'BAT-EU-001-A';
/** How long the test follows the queued change once it is due, ms of real time (a guard). */
const FOLLOW_MS = 15_000;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    followSandboxClock: true,
    bff: {
      testing: {
        readModelTickMs: 0,
        // The queue looks for due changes only when the test says (`recheck`), so a change due
        // after the clock moved waits until the vendor holds the overlapping command.
        changeQueue: { pollingIntervalSeconds: 0.5, recheckIntervalMs: 3_600_000 },
      },
    },
  });
  await stack.bff.changeQueueStarted();
});
afterAll(() => stack?.close());

async function signedIn(operatorName: string): Promise<BrowserClient> {
  const browser = stack.browser();
  expect((await browser.signIn({ ...DEMO_EU, operatorName })).status).toBe(200);
  return browser;
}

const windowAt = (startMs: number, minutes: number) => ({
  startTime: new Date(startMs).toISOString(),
  endTime: new Date(startMs + minutes * MINUTE_MS).toISOString(),
});

describe('a queued change the vendor refuses when it goes', () => {
  it('ends failed with the reason in words, is pushed, notified to its maker and the account, and audited with its reason', async () => {
    const ada = await signedIn('Ada');
    const bea = await signedIn('Bea');
    const cookie = (browser: BrowserClient) =>
      [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const stream = await openEventStream(stack.bff, cookie(bea));
    try {
      expect((await ada.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
      const t0 = await stack.admin.nowMs();
      const base = Math.ceil(t0 / MINUTE_MS) * MINUTE_MS + 30 * MINUTE_MS;
      const submit = (key: string, window: { startTime: string; endTime: string }) =>
        ada.request({
          method: 'POST',
          path: `/api/devices/${DEVICE}/commands`,
          json: { powerControl: { targetBatteryPowerW: -3000 }, ...window },
          headers: { 'idempotency-key': key },
        });

      // The device's 2 calls of this minute are spent (the bind's first read of the device may
      // have taken one): submissions go until one is queued.
      let queued: QueuedAnswer['queued'] | undefined;
      let third = windowAt(base, 10);
      for (let i = 0; i < 3 && !queued; i += 1) {
        third = windowAt(base + i * 20 * MINUTE_MS, 10);
        const answered = await submit(`fate-${i}`, third);
        expect(answered.status).toBe(202);
        const answer = QueuedAnswerSchema.safeParse(answered.json());
        if (answer.success) queued = answer.data.queued;
      }
      if (!queued) throw new Error('no submission was queued: the device had more than 2 calls');
      expect(queued.reason).toBe('no_slot');

      // A minute on, another client of the account sends an overlapping command to the vendor.
      await stack.admin.advanceClock(MINUTE_MS + 1_000);
      const outside = await vendorSubmit(stack.sandboxUrl, DEVICE, {
        powerControl: { targetBatteryPowerW: 2000 },
        ...third,
      });
      expect(outside.status).toBe(202);

      // The queued submission goes now, and the vendor refuses it.
      await stack.bff.changeQueue.recheck();
      const deadline = Date.now() + FOLLOW_MS;
      let change = QueuedChangeStatusSchema.parse(
        (await ada.get(`/api/changes/${queued.changeId}`)).json(),
      );
      while (['queued', 'sending'].includes(change.state) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        change = QueuedChangeStatusSchema.parse(
          (await ada.get(`/api/changes/${queued.changeId}`)).json(),
        );
      }
      expect(change.state).toBe('failed');
      expect(change.outcome?.failure).toBe('refused');
      const reason = change.outcome?.detail ?? '';
      expect(reason).toMatch(/overlap/i);

      // Pushed to every open browser of the account: the change and its new state.
      await stream.waitFor(
        (message) =>
          message.data.type === 'queuedChangeChanged' &&
          (message.data.data as { changeId: string; state: string }).changeId === queued.changeId &&
          (message.data.data as { state: string }).state === 'failed',
      );

      // The audit's entry of the submission says it was refused, and why, in words.
      const ledger = LedgerPageSchema.parse(
        (await ada.get(`/api/ledger?deviceId=${DEVICE}&kind=submit&state=failed`)).json(),
      );
      const entry = ledger.entries.find((e) => e.startTime === third.startTime);
      expect(entry?.outcome?.error?.message).toBe(reason);
      expect(entry?.outcome?.error?.message).not.toMatch(/[a-z][A-Z]|\/api\//);
      // Its maker and the other person of the account are told, with the reason in words.
      for (const person of [ada, bea]) {
        const inbox = NotificationPageSchema.parse((await person.get('/api/notifications')).json());
        const refused = inbox.notifications.find((n) => n.kind === 'queuedChangeFailed');
        expect(refused, JSON.stringify(inbox.notifications)).toBeDefined();
        expect(refused?.title).toBe(`Queued command for ${DEVICE} refused by the vendor`);
        expect(refused?.body).toContain(reason);
        // It links the device's page and shows the window on the site's clock.
        expect(refused?.link).toBe(`/sites/PLANT-EU-001/devices/${DEVICE}`);
        expect(refused?.timeZone).toBe('Europe/Berlin');
        expect(refused?.window).toEqual(third);
        expect(refused?.readAt).toBeUndefined();
      }
    } finally {
      stream.close();
    }
  }, 60_000);
});
