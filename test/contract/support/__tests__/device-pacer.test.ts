import { describe, expect, it } from 'vitest';
import { DevicePacer } from '../device-pacer.ts';

/** A pacer on a fake clock: waiting moves the clock, so nothing sleeps. */
function fakePacer() {
  let nowMs = 0;
  const waits: number[] = [];
  const pacer = new DevicePacer(
    () => nowMs,
    async (ms) => {
      waits.push(ms);
      nowMs += ms;
    },
  );
  return {
    pacer,
    waits,
    at: (ms: number) => {
      nowMs = ms;
    },
  };
}

describe('DevicePacer (the suite against a real vendor: docs/upstream.md, Rate limit)', () => {
  it('lets 2 calls about a device go at once and holds the third until the first is a minute old', async () => {
    const { pacer, waits, at } = fakePacer();
    await pacer.before(['A']);
    at(10_000);
    await pacer.before(['A']);
    await pacer.before(['B']);
    expect(waits).toEqual([]);
    await pacer.before(['A']);
    // A minute and a second's margin after the call at 0.
    expect(waits).toEqual([51_000]);
    await pacer.before(['A']);
    expect(waits).toEqual([51_000, 10_000]);
  });

  it('paces a batch on all its devices and its cancel on the devices it was sent to', async () => {
    const { pacer, waits } = fakePacer();
    await pacer.before(['A']);
    await pacer.before(['A', 'B']);
    pacer.rememberBatch('batch_1', ['A', 'B']);
    expect(pacer.devicesOf('batch_1')).toEqual(['A', 'B']);
    expect(pacer.devicesOf('batch_other')).toEqual([]);
    await pacer.before(pacer.devicesOf('batch_1'));
    expect(waits).toEqual([61_000]);
  });

  it('counts a call it does not hold back, and waits until a device has every slot free', async () => {
    const { pacer, waits, at } = fakePacer();
    pacer.record(['A']);
    at(20_000);
    pacer.record(['A']);
    pacer.record(['A']);
    expect(waits).toEqual([]);
    await pacer.untilFree(['A', 'B']);
    // Until the newest call, at 20 s, is a minute (and a second) old.
    expect(waits).toEqual([61_000]);
    await pacer.untilFree(['A']);
    expect(waits).toHaveLength(1);
  });
});
