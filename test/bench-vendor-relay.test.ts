/**
 * The bench's record of vendor calls (bench/lib/vendor-relay.ts) and the per-device figure read
 * from it (bench/figures/budget.ts): a call counts when the sandbox answered it, on the sandbox's
 * clock, so a bench that moves that clock instead of waiting a real minute, or whose wire is slow,
 * still counts each call in the vendor's minute.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxPerRollingMinute } from '../bench/figures/budget.ts';
import { startVendorRelay, type VendorRelay } from '../bench/lib/vendor-relay.ts';
import type { RelayedDeviceCall } from '../bench/lib/vendor-relay.ts';

const MINUTE_MS = 60_000;
const SUBMIT_PATH = '/eu/api/openapi/v1/device/BAT-EU-001-A/commands';

let upstream: Server;
let relay: VendorRelay;

beforeAll(async () => {
  // Stands in for the sandbox: answers every request 201 after 50 ms, a wire of its own.
  upstream = createServer((_incoming, outgoing) => {
    setTimeout(() => {
      outgoing.writeHead(201, { 'content-type': 'application/json' });
      outgoing.end('{}');
    }, 50);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  relay = await startVendorRelay();
  relay.forwardTo(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
});

afterAll(async () => {
  await relay?.close();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
});

async function submit(): Promise<void> {
  const answer = await request(`${relay.origin}${SUBMIT_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  await answer.body.dump();
  expect(answer.statusCode).toBe(201);
}

const call = (answeredAtMs: number): RelayedDeviceCall => ({
  atMs: 0,
  answeredAtMs,
  method: 'POST',
  route: 'POST /device/:deviceId/commands',
  deviceIds: ['BAT-EU-001-A'],
  status: 201,
});

describe('the vendor relay', () => {
  it('records a device call at its answer, on the sandbox clock the bench moved', async () => {
    const before = Date.now();
    await submit();
    relay.clockMovedBy(MINUTE_MS);
    await submit();
    const [first, second] = relay.calls;
    expect(relay.calls.map((c) => c.deviceIds)).toEqual([['BAT-EU-001-A'], ['BAT-EU-001-A']]);
    // Answered after the upstream's 50 ms, not when the relay received it.
    expect(first?.answeredAtMs).toBeGreaterThanOrEqual((first?.atMs ?? 0) + 45);
    expect(first?.answeredAtMs).toBeGreaterThanOrEqual(before);
    // The second is on the moved clock: a minute and more after the first, though sent at once.
    expect((second?.answeredAtMs ?? 0) - (first?.answeredAtMs ?? 0)).toBeGreaterThanOrEqual(
      MINUTE_MS,
    );
    expect((second?.atMs ?? 0) - (first?.atMs ?? 0)).toBeLessThan(MINUTE_MS);
    expect(relay.inFlight()).toBe(0);
  });
});

describe('the most calls of one device in a rolling minute', () => {
  it('counts each call at its answer on the sandbox clock: three within 60 s are 3, a third 60 s after the first is not', () => {
    expect(maxPerRollingMinute([call(0), call(30_000), call(59_999)]).max).toBe(3);
    const spread = maxPerRollingMinute([call(0), call(30_000), call(60_000)]);
    expect(spread.max).toBe(2);
    expect(spread.closestThirdMs).toBe(60_000);
  });
});
