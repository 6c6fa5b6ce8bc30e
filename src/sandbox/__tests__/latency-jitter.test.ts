/**
 * The jittered latency fault (src/sandbox/README.md, Admin API): each request waits `latencyMs`
 * plus a draw of up to `latencyJitterMs` from a PRNG seeded with `latencySeed`, so a fault test
 * over a slow wire that varies is repeatable; likewise the requests `errorRate` fails, drawn from
 * a PRNG seeded with `errorSeed`.
 */
import { describe, expect, it } from 'vitest';
import { FaultInjector, FaultSettingsSchema, type FaultSettings } from '../http/faults.ts';

/** A fault injector with `settings` PUT, as the admin API sets them. */
function injectorWith(settings: FaultSettings): FaultInjector {
  const injector = new FaultInjector();
  injector.set(settings);
  return injector;
}

const waits = (injector: FaultInjector, count: number) =>
  Array.from({ length: count }, () => injector.nextLatencyMs());

describe('jittered latency', () => {
  it('waits between latencyMs and latencyMs + latencyJitterMs, the same sequence for the same seed', () => {
    const settings = FaultSettingsSchema.parse({
      latencyMs: 300,
      latencyJitterMs: 2_700,
      latencySeed: 'slow wire',
    });
    const one = injectorWith(settings);
    const drawn = waits(one, 200);
    expect(Math.min(...drawn)).toBeGreaterThanOrEqual(300);
    expect(Math.max(...drawn)).toBeLessThanOrEqual(3_000);
    // It varies across the range, not a fixed wait.
    expect(new Set(drawn).size).toBeGreaterThan(150);
    expect(drawn.filter((ms) => ms < 1_000).length).toBeGreaterThan(20);
    expect(drawn.filter((ms) => ms > 2_300).length).toBeGreaterThan(20);

    const again = injectorWith(settings);
    expect(waits(again, 200)).toEqual(drawn);
    // Each PUT starts the sequence afresh; another seed gives another one.
    one.set(settings);
    expect(waits(one, 5)).toEqual(drawn.slice(0, 5));
    one.set({ ...settings, latencySeed: 'another wire' });
    expect(waits(one, 5)).not.toEqual(drawn.slice(0, 5));
  });

  it('waits latencyMs alone without jitter, and nothing without latency', () => {
    const injector = injectorWith({ latencyMs: 250 });
    expect(waits(injector, 3)).toEqual([250, 250, 250]);
    injector.set({});
    expect(waits(injector, 3)).toEqual([0, 0, 0]);
  });
});

describe('injected errors', () => {
  const STATUS_ROUTE = 'eu GET /devices/:deviceId/commands/:commandId';
  /** Which of `count` requests of `route` the injector fails (true) and lets through (false). */
  const failures = async (injector: FaultInjector, count: number, route = STATUS_ROUTE) => {
    const failed: boolean[] = [];
    for (let i = 0; i < count; i += 1)
      failed.push(
        await injector.beforeRequest(route).then(
          () => false,
          () => true,
        ),
      );
    return failed;
  };

  it('fails a share errorRate of requests, the same ones for the same errorSeed', async () => {
    const settings = FaultSettingsSchema.parse({
      errorRate: 0.3,
      errorStatus: 503,
      errorSeed: 'lossy wire',
    });
    const one = injectorWith(settings);
    const drawn = await failures(one, 200);
    const failedCount = drawn.filter(Boolean).length;
    expect(failedCount).toBeGreaterThan(40);
    expect(failedCount).toBeLessThan(80);
    expect(one.stats().faultsInjected).toBe(failedCount);

    const again = injectorWith(settings);
    expect(await failures(again, 200)).toEqual(drawn);
    // Each PUT starts the sequence afresh; another seed fails other requests.
    one.set(settings);
    expect(await failures(one, 20)).toEqual(drawn.slice(0, 20));
    one.set({ ...settings, errorSeed: 'another wire' });
    expect(await failures(one, 20)).not.toEqual(drawn.slice(0, 20));
  });

  it("draws each route's failures apart, so requests of other routes in between change nothing", async () => {
    const settings = { errorRate: 0.3, errorSeed: 'lossy wire' };
    const alone = injectorWith(settings);
    const drawn = await failures(alone, 40);
    const interleaved = injectorWith(settings);
    const failed: boolean[] = [];
    for (let i = 0; i < 40; i += 1) {
      await failures(interleaved, i % 3, 'eu POST /devices/commands');
      failed.push(...(await failures(interleaved, 1)));
    }
    expect(failed).toEqual(drawn);
  });

  it('fails the same requests without a seed, as for the seed ""', async () => {
    const unseeded = injectorWith({ errorRate: 0.5 });
    const empty = injectorWith({ errorRate: 0.5, errorSeed: '' });
    expect(await failures(unseeded, 50)).toEqual(await failures(empty, 50));
  });
});
