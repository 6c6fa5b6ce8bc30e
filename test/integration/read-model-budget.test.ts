/**
 * The read model within the vendor's limit (docs/decisions/007-device-call-budget.md, sections 1,
 * 3 and 4), BFF + sandbox over real HTTP, the BFF on the sandbox's clock: however many browsers
 * poll a device's commands, the vendor sees at most 2 calls of that device in any rolling minute,
 * the statuses still follow the lifecycle, and each change is pushed to an open events stream;
 * and a device with commands in two 30-day history ranges has each of them read in turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BatchSubmissionResponseSchema } from '#domain/batch.ts';
import { StatusRecordSchema, SubmissionResponseSchema } from '#domain/command.ts';
import { HistoryResponseSchema, MAX_HISTORY_RANGE_MS } from '#domain/history.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import {
  openEventStream,
  type ServerSentMessage,
} from '#server/__tests__/support/event-stream-client.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const STEP_MS = 20_000;
/** Steps of one rolling minute: calls at steps k-2..k fall within 60 s of step k. */
const STEPS_PER_MINUTE = MINUTE_MS / STEP_MS;
const BROWSERS = 6;
const DEVICE = 'BAT-EU-001-A';

let stack: Stack;

beforeAll(async () => {
  // The refresher looks for due devices only when the test says (after moving the clock), and
  // when a change makes a device due at once.
  stack = await startStack({
    followSandboxClock: true,
    relay: true,
    bff: { testing: { readModelTickMs: 0 } },
  });
});
afterAll(() => stack?.close());

/** The device a vendor call is about, from its path (`/device/X/commands`, `/devices/X/...`). */
const deviceOf = (path: string) => /\/devices?\/([^/?]+)\/commands/.exec(path)?.[1];

/** Vendor calls about device routes, as the sandbox counts them (`GET /_sandbox/stats`). */
async function deviceCallsCounted(): Promise<number> {
  const { byRoute } = (await stack.admin.stats()) as { byRoute: Record<string, number> };
  return Object.entries(byRoute)
    .filter(([route]) => route.includes(':deviceId'))
    .reduce((sum, [, count]) => sum + count, 0);
}

// Bounded: 22 steps of 14 browser reads; the time limit is a guard for a loaded machine.
describe('browsers polling a device read the read model, not the vendor', () => {
  it(`${BROWSERS} sessions polling one device and paging its history for minutes: at most 2 vendor calls of it per rolling minute, and every change pushed`, async () => {
    await stack.admin.reset();
    const browsers: BrowserClient[] = [];
    for (let i = 0; i < BROWSERS; i += 1) {
      const browser = stack.browser();
      expect((await browser.signIn(DEMO_EU)).status).toBe(200);
      browsers.push(browser);
    }
    const [first, watcher] = browsers as [BrowserClient, BrowserClient];
    const cookie = [...watcher.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const stream = await openEventStream(stack.bff, cookie);
    const reads = stack.bff.readModel.reads;

    // Every vendor call of each device, by the step of the sandbox clock it was made in.
    let step = 0;
    const calls: { step: number; deviceId: string; method: string }[] = [];
    const relay = stack.relay;
    if (!relay) throw new Error('the stack was started with a relay');
    relay.plan = (method, path) => {
      const deviceId = deviceOf(path);
      if (deviceId) calls.push({ step, deviceId, method });
      return 'pass';
    };
    const countedBefore = await deviceCallsCounted();

    try {
      expect((await first.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
      const nowMs = await stack.admin.nowMs();
      const startMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + 2 * MINUTE_MS;
      const endMs = startMs + 3 * MINUTE_MS;
      const submitted = await first.post(`/api/devices/${DEVICE}/commands`, {
        powerControl: { targetBatteryPowerW: -3000 },
        startTime: new Date(startMs).toISOString(),
        endTime: new Date(endMs).toISOString(),
      });
      expect(submitted.status).toBe(202);
      const { id } = SubmissionResponseSchema.parse(submitted.json());
      const statusPath = `/api/devices/${DEVICE}/commands/${id}`;
      const historyPath = `/api/devices/${DEVICE}/commands?startTime=${new Date(startMs - 60 * MINUTE_MS).toISOString()}&endTime=${new Date(endMs + 60 * MINUTE_MS).toISOString()}`;

      // A range of history never read, `back` 30-day ranges before the command's: each asks the
      // read model for a read of it, so the device always has reads waiting for its budget.
      const olderPath = (back: number) => {
        const endMs = startMs - back * MAX_HISTORY_RANGE_MS;
        return `/api/devices/${DEVICE}/commands?startTime=${new Date(endMs - DAY_MS).toISOString()}&endTime=${new Date(endMs).toISOString()}`;
      };
      let asked = 0;

      // Every browser polls the status and the history, as each open page does, and pages back
      // to an older range.
      const pollAll = async () => {
        const statuses = new Set<string>();
        for (const [index, browser] of browsers.entries()) {
          // Two pages a step ask for a range never read: more than the budget can carry.
          if (index < 2) {
            asked += 1;
            const older = await browser.get(olderPath(asked));
            expect(older.status).toBe(200);
          }
          const status = await browser.get(statusPath);
          expect(status.status).toBe(200);
          statuses.add(StatusRecordSchema.parse(status.json()).status);
          const history = await browser.get(historyPath);
          expect(history.status).toBe(200);
          const { commands } = HistoryResponseSchema.parse(history.json());
          expect(commands.map((c) => c.id)).toContain(id);
        }
        // Every session sees the same state: one read model.
        expect(statuses.size).toBe(1);
        return [...statuses][0];
      };

      await reads.runDue();
      expect(await pollAll()).toBe('received');

      const seen: string[] = [];
      let pushedBefore = new Set<ServerSentMessage>(stream.messages);
      const pushedChange = (message: ServerSentMessage) =>
        !pushedBefore.has(message) &&
        message.data.type === 'deviceCommandsChanged' &&
        (message.data.data as { deviceIds: string[] }).deviceIds.includes(DEVICE);
      const steps = Math.ceil((endMs + MINUTE_MS - nowMs) / STEP_MS);
      for (let i = 0; i < steps; i += 1) {
        step += 1;
        await stack.admin.advanceClock(STEP_MS);
        await reads.runDue();
        const status = await pollAll();
        if (status && seen.at(-1) !== status) {
          seen.push(status);
          // The state change reached the open stream (waitFor: a guard, not a measure).
          if (seen.length > 1) {
            await stream.waitFor(pushedChange);
            pushedBefore = new Set(stream.messages);
          }
        }
      }
      expect(seen).toEqual(['received', 'executing', 'completed']);

      // Within the limit: per device, at most 2 reads in any rolling minute. The submission is a
      // control call, which goes through the budget with the queue of changes (decision 007,
      // section 2), not in this branch: only reads are counted here.
      const perDeviceStep = new Map<string, number[]>();
      for (const call of calls.filter((c) => c.method === 'GET')) {
        const counts = perDeviceStep.get(call.deviceId) ?? Array<number>(step + 1).fill(0);
        counts[call.step] = (counts[call.step] ?? 0) + 1;
        perDeviceStep.set(call.deviceId, counts);
      }
      let busiestMinute = 0;
      for (const [deviceId, counts] of perDeviceStep)
        for (let k = 0; k < counts.length; k += 1) {
          const window = counts
            .slice(Math.max(0, k - STEPS_PER_MINUTE + 1), k + 1)
            .reduce((sum, n) => sum + n, 0);
          busiestMinute = Math.max(busiestMinute, window);
          expect({ deviceId, step: k, calls: window }).toEqual({
            deviceId,
            step: k,
            calls: Math.min(window, 2),
          });
        }
      // The polls made BROWSERS x 2 + 2 reads a step, 2 of ranges never read: the device's budget,
      // not the polls, decided how often the vendor was asked.
      const deviceCalls = calls.filter((call) => call.deviceId === DEVICE);
      console.info(
        `read model budget report ${JSON.stringify({ browsers: BROWSERS, sandboxMinutes: (step * STEP_MS) / MINUTE_MS, browserReads: (step + 1) * (BROWSERS * 2 + 2), vendorCallsOfDevice: deviceCalls.length, vendorCallsAllDevices: calls.length, busiestRollingMinutePerDevice: busiestMinute })}`,
      );
      const deviceReads = deviceCalls.filter((call) => call.method === 'GET').length;
      expect(deviceReads).toBeLessThanOrEqual(2 * (Math.floor((step * STEP_MS) / MINUTE_MS) + 1));
      expect(deviceCalls.length).toBeGreaterThanOrEqual(3);
      // Saturated, the reads took one call of each minute: a read never takes a device's last
      // free call, which is kept for a change (callsKeptForChanges).
      expect(busiestMinute).toBe(1);
      // What the relay saw is what the sandbox counted.
      expect((await deviceCallsCounted()) - countedBefore).toBe(calls.length);
    } finally {
      stream.close();
    }
  }, 180_000);
});

// Bounded: 9 steps of 20 s of sandbox time, one ledger read each.
describe('a device with commands in two history ranges', () => {
  it("reads them in turn: a batch's command in the next range is confirmed within 3 minutes, though a waiting command keeps the present range open", async () => {
    await stack.admin.reset();
    await stack.forgetUpstream();
    const relay = stack.relay;
    if (!relay) throw new Error('the stack was started with a relay');
    // The range of each history read of the device, by its start, in the order sent.
    const rangesRead: number[] = [];
    relay.plan = (method, path) => {
      const [route = '', query = ''] = path.split('?');
      const startTime = new URLSearchParams(query).get('startTime');
      if (method === 'GET' && deviceOf(route) === DEVICE && startTime)
        rangesRead.push(Date.parse(startTime));
      return 'pass';
    };
    const reads = stack.bff.readModel.reads;

    // Two hours before the end of the present 30-day range (ranges are counted from the epoch,
    // domain historyRangeSlots): the waiting command lies in it, the batch in the next one.
    const wallMs = await stack.admin.nowMs();
    let boundaryMs = (Math.floor(wallMs / MAX_HISTORY_RANGE_MS) + 1) * MAX_HISTORY_RANGE_MS;
    if (boundaryMs - wallMs < 3 * 60 * MINUTE_MS) boundaryMs += MAX_HISTORY_RANGE_MS;
    await stack.admin.setClock(new Date(boundaryMs - 2 * 60 * MINUTE_MS));

    const browser = stack.browser();
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
    await reads.runDue();

    const nowMs = await stack.admin.nowMs();
    const waitingStartMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + 30 * MINUTE_MS;
    const waiting = await browser.post(`/api/devices/${DEVICE}/commands`, {
      powerControl: { targetBatteryPowerW: -2000 },
      startTime: new Date(waitingStartMs).toISOString(),
      endTime: new Date(waitingStartMs + 30 * MINUTE_MS).toISOString(),
    });
    expect(waiting.status).toBe(202);
    const waitingId = SubmissionResponseSchema.parse(waiting.json()).id;
    await reads.runDue();
    // The device's calls of this minute are spent: the batch goes in the next one.
    await stack.admin.advanceClock(MINUTE_MS);
    await reads.runDue();

    const devices = [DEVICE, 'BAT-EU-001-B'];
    const batchCommand = {
      powerControl: { targetBatteryPowerW: 1500 },
      startTime: new Date(boundaryMs + 10 * MINUTE_MS).toISOString(),
      endTime: new Date(boundaryMs + 40 * MINUTE_MS).toISOString(),
    };
    const sent = await browser.request({
      method: 'POST',
      path: '/api/batches',
      json: { devices, command: batchCommand },
      headers: { 'idempotency-key': `"${randomUUID()}"` },
    });
    expect(sent.status).toBe(202);
    const { batchCommandId } = BatchSubmissionResponseSchema.parse(sent.json());
    if (!batchCommandId) throw new Error('the batch was answered at once: it has its ID');

    const batchEntry = async () => {
      const page = LedgerPageSchema.parse(
        (await browser.get(`/api/ledger?batchCommandId=${batchCommandId}&kind=batch`)).json(),
      );
      expect(page.entries).toHaveLength(1);
      return page.entries[0]?.outcome;
    };
    const commandOf = async (deviceId: string) =>
      (await batchEntry())?.commands?.find((command) => command.deviceId === deviceId);

    // The vendor's 2 calls a minute, a read never taking the last: one read of the device a
    // minute, so three minutes of sandbox time give it two reads, one per range at least.
    const readsBefore = rangesRead.length;
    let confirmedAfterMs: number | undefined;
    for (let elapsedMs = STEP_MS; elapsedMs <= 3 * MINUTE_MS; elapsedMs += STEP_MS) {
      await stack.admin.advanceClock(STEP_MS);
      await reads.runDue();
      if (await commandOf(DEVICE)) {
        confirmedAfterMs = elapsedMs;
        break;
      }
    }
    console.info(
      `read model fairness report ${JSON.stringify({ confirmedAfterMs, rangesReadAfterBatch: rangesRead.slice(readsBefore).map((ms) => (ms === boundaryMs ? 'next' : 'present')) })}`,
    );
    const outcome = await batchEntry();
    expect({
      confirmedWithin3Minutes: confirmedAfterMs !== undefined,
      unconfirmed: outcome?.unconfirmed,
    }).toEqual({
      confirmedWithin3Minutes: true,
      unconfirmed: [],
    });
    expect(outcome?.confirmation).toBe('confirmed');
    // The first read after the batch took the range never read, not the present one again.
    expect(rangesRead.slice(readsBefore, readsBefore + 1)).toEqual([boundaryMs]);

    // The waiting command, which keeps the present range open, is still waiting.
    const status = await browser.get(`/api/devices/${DEVICE}/commands/${waitingId}`);
    expect(StatusRecordSchema.parse(status.json()).status).toBe('received');
    // The command confirmed is the one the vendor holds.
    const held = await stack.vendorHistory(DEVICE, batchCommand);
    expect(held.map((command) => command.id)).toEqual([(await commandOf(DEVICE))?.id]);
  }, 60_000);
});
