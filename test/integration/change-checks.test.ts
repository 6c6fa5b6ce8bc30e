/**
 * A change is checked before anything is sent or queued (docs/decisions/007-device-call-budget.md,
 * sections 1 and 2; docs/architecture.md, BFF surface): BFF + sandbox over real HTTP, the sandbox
 * at the vendor's 2 calls per device per rolling minute and the BFF on the sandbox's clock, which
 * the tests move (never sleeping). A window that overlaps a command the read model knows, or that
 * has already ended, is refused at once with no call to the vendor, whether the device's calls
 * are spent or not; a queued change whose window ended while it waited is refused rather than
 * sent; and a vendor's overlap refusal is named from the read model, never by an extra call.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SubmissionResponseSchema } from '#domain/command.ts';
import { QueuedAnswerSchema } from '#domain/queued-change.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const OWNER = { region: DEMO_EU.region, clientId: DEMO_EU.clientId };

let stack: Stack;
let browser: BrowserClient;
/** Every vendor call about a device, in the order the relay saw them. */
const calls: { deviceId: string; method: string; path: string }[] = [];

/** The device a vendor call is about, from its path (`/device/X/commands`, `/devices/X/...`). */
const deviceOf = (path: string) => /\/devices?\/([^/?]+)\/commands/.exec(path)?.[1];

beforeAll(async () => {
  // The refresher reads only when a test says (or a change makes a device due at once).
  stack = await startStack({
    followSandboxClock: true,
    relay: true,
    bff: { testing: { readModelTickMs: 0 } },
  });
  const relay = stack.relay;
  if (!relay) throw new Error('the stack was started with a relay');
  relay.plan = (method, path) => {
    const deviceId = deviceOf(path);
    if (deviceId) calls.push({ deviceId, method, path });
    return 'pass';
  };
  await stack.bff.changeQueueStarted();
  browser = stack.browser();
  expect((await browser.signIn(DEMO_EU)).status).toBe(200);
  expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
  expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-002' })).status).toBe(201);
  // The bound devices' first reads, done before the tests count calls.
  await stack.bff.readModel.reads.runDue();
}, 60_000);
afterAll(() => stack?.close());

beforeEach(async () => {
  // A minute on: every device has both of its calls again.
  await stack.admin.advanceClock(MINUTE_MS);
});

/** A command for `[now + startMin, now + startMin + lengthMin)` minutes on the sandbox clock. */
async function command(startMin: number, lengthMin: number, watts = -2000) {
  const nowMs = await stack.admin.nowMs();
  const startMs = Math.ceil(nowMs / 1000) * 1000 + startMin * MINUTE_MS;
  return {
    powerControl: { targetBatteryPowerW: watts },
    startTime: new Date(startMs).toISOString(),
    endTime: new Date(startMs + lengthMin * MINUTE_MS).toISOString(),
  };
}

/** The vendor calls about `deviceId` made while `action` ran, and what `action` gave. */
async function callsDuring<T>(
  deviceId: string,
  action: () => Promise<T>,
): Promise<{ result: T; deviceCalls: string[] }> {
  const before = calls.length;
  const result = await action();
  const deviceCalls = calls
    .slice(before)
    .filter((call) => call.deviceId === deviceId)
    .map((call) => `${call.method} ${call.path}`);
  return { result, deviceCalls };
}

const submit = (deviceId: string, body: unknown) =>
  browser.post(`/api/devices/${deviceId}/commands`, body);

describe('a submission overlapping a command the read model knows', () => {
  it('is refused before any call, naming the command in the way', async () => {
    const deviceId = 'BAT-EU-001-A';
    const first = await submit(deviceId, await command(10, 30));
    expect(first.status).toBe(202);
    const { id } = SubmissionResponseSchema.parse(first.json());

    const { result, deviceCalls } = await callsDuring(deviceId, async () =>
      submit(deviceId, await command(20, 30, -1000)),
    );
    expect(deviceCalls).toEqual([]);
    expect(result.status).toBe(409);
    expect(result.json()).toMatchObject({
      code: 'window_overlap',
      detail: expect.stringContaining(`command ${id}`),
      details: { conflictingCommandId: id },
    });
  });

  it("with the device's calls spent, is refused at once with the same words instead of queued", async () => {
    const deviceId = 'BAT-EU-002-A';
    const first = await submit(deviceId, await command(10, 30));
    expect(first.status).toBe(202);
    const { id } = SubmissionResponseSchema.parse(first.json());
    expect((await submit(deviceId, await command(50, 10))).status).toBe(202);

    const { result, deviceCalls } = await callsDuring(deviceId, async () =>
      submit(deviceId, await command(20, 30, -1000)),
    );
    expect(deviceCalls).toEqual([]);
    expect(result.status, result.text).toBe(409);
    expect(result.json()).toMatchObject({
      code: 'window_overlap',
      detail: expect.stringContaining(`command ${id}`),
      details: { conflictingCommandId: id },
    });
    expect(await stack.bff.changeQueue.list(OWNER, { waiting: true, deviceId })).toEqual([]);
  });

  it('refused by the vendor for a command the read model does not know, costs the one call', async () => {
    const deviceId = 'BAT-EU-001-C';
    expect((await submit(deviceId, await command(10, 30))).status).toBe(202);
    // The BFF forgets what it learnt: the vendor holds a command its read model does not.
    await stack.forgetUpstream();
    await stack.admin.advanceClock(MINUTE_MS);

    const { result, deviceCalls } = await callsDuring(deviceId, async () =>
      submit(deviceId, await command(20, 30, -1000)),
    );
    expect(result.status, result.text).toBe(409);
    expect(result.json()).toMatchObject({ code: 'window_overlap' });
    expect(deviceCalls).toEqual([expect.stringMatching(/^POST /)]);
  });
});

describe('a window that has already ended', () => {
  const ended = {
    code: 'window_ended',
    detail: expect.stringContaining('this window has already ended'),
  };

  it('is refused before sending, as a submission and as a batch', async () => {
    const deviceId = 'BAT-EU-001-B';
    const { result, deviceCalls } = await callsDuring(deviceId, async () => [
      await submit(deviceId, await command(-90, 30)),
      await browser.post('/api/batches', {
        devices: [deviceId, 'BAT-EU-001-A'],
        command: await command(-90, 30),
      }),
    ]);
    expect(deviceCalls).toEqual([]);
    for (const answer of result) {
      expect(answer.status, answer.text).toBe(422);
      expect(answer.json()).toMatchObject(ended);
    }
  });

  it('is refused when a queued change would go after it ended, not sent', async () => {
    const deviceId = 'BAT-EU-001-B';
    expect((await submit(deviceId, await command(10, 5))).status).toBe(202);
    expect((await submit(deviceId, await command(20, 5))).status).toBe(202);
    const queued = await submit(deviceId, await command(4, 2));
    expect(queued.status, queued.text).toBe(202);
    const { changeId } = QueuedAnswerSchema.parse(queued.json()).queued;

    // Its slot comes long after the window ended (the BFF was down, say).
    await stack.admin.advanceClock(10 * MINUTE_MS);
    const queue = stack.bff.changeQueue;
    const { result, deviceCalls } = await callsDuring(deviceId, async () => {
      await queue.recheck();
      return queue.settled(OWNER, changeId, 10_000);
    });
    expect(deviceCalls.filter((call) => call.startsWith('POST'))).toEqual([]);
    expect(result).toMatchObject({
      state: 'failed',
      outcome: { detail: expect.stringContaining('this window has already ended') },
    });
  });
});
