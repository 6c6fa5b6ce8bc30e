import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkPlanDeadline,
  deviceBudgetAt,
  deviceBudgetWords,
  earliestCallAtMs,
  planBatchAtMs,
  planCalls,
  planDeviceSequence,
  planTogether,
  type DeviceCallBudget,
  type DeviceCalls,
} from '../device-budget.ts';

const BUDGET: DeviceCallBudget = { limit: 2, windowMs: 60_000 };
const T = Date.parse('2026-11-25T14:00:00Z');
const s = (seconds: number) => T + seconds * 1000;

describe('deviceBudgetAt', () => {
  it('has every slot free when nothing was spent', () => {
    expect(deviceBudgetAt({ spentAtMs: [] }, BUDGET, T)).toEqual({ freeNow: 2, freesAtMs: [] });
  });

  it('frees a slot a window after its call, not a moment before', () => {
    const calls = { spentAtMs: [s(-50), s(-10)] };
    expect(deviceBudgetAt(calls, BUDGET, T)).toEqual({ freeNow: 0, freesAtMs: [s(10), s(50)] });
    expect(deviceBudgetAt(calls, BUDGET, s(10) - 1).freeNow).toBe(0);
    expect(deviceBudgetAt(calls, BUDGET, s(10))).toEqual({ freeNow: 1, freesAtMs: [s(50)] });
  });

  it('ignores calls older than a window', () => {
    expect(deviceBudgetAt({ spentAtMs: [s(-120), s(-60), s(-5)] }, BUDGET, T)).toEqual({
      freeNow: 1,
      freesAtMs: [s(55)],
    });
  });

  it('holds every slot until a 429 said the device is free again', () => {
    expect(deviceBudgetAt({ spentAtMs: [], busyUntilMs: s(30) }, BUDGET, T)).toEqual({
      freeNow: 0,
      freesAtMs: [s(30), s(30)],
    });
    expect(deviceBudgetAt({ spentAtMs: [s(-10)], busyUntilMs: s(30) }, BUDGET, T)).toEqual({
      freeNow: 0,
      freesAtMs: [s(30), s(50)],
    });
  });

  it('refuses a budget that allows nothing', () => {
    expect(() => deviceBudgetAt(NONE, { limit: 0, windowMs: 60_000 }, T)).toThrow(RangeError);
    expect(() => deviceBudgetAt(NONE, { limit: 2, windowMs: 0 }, T)).toThrow(RangeError);
  });
});

const NONE: DeviceCalls = { spentAtMs: [] };

describe('plans', () => {
  it('sends a replace at once when both slots are free', () => {
    expect(planDeviceSequence(NONE, 2, BUDGET, T)).toEqual([T, T]);
  });

  it('puts the second step of a replace where the older call frees its slot', () => {
    expect(planDeviceSequence({ spentAtMs: [s(-30)] }, 2, BUDGET, T)).toEqual([T, s(30)]);
  });

  it('waits for both slots of a device that spent them', () => {
    expect(planDeviceSequence({ spentAtMs: [s(-50), s(-10)] }, 3, BUDGET, T)).toEqual([
      s(10),
      s(50),
      s(70),
    ]);
  });

  it('sends a batch when the last of its devices has a slot', () => {
    const devices = new Map<string, DeviceCalls>([
      ['BAT-1', { spentAtMs: [s(-50), s(-40)] }],
      ['BAT-2', { spentAtMs: [s(-20), s(-15)] }],
      ['BAT-3', NONE],
    ]);
    expect(planBatchAtMs(devices, ['BAT-1', 'BAT-2', 'BAT-3'], BUDGET, T)).toBe(s(40));
    expect(planBatchAtMs(devices, ['BAT-3'], BUDGET, T)).toBe(T);
  });

  it('plans a batch cancel after a batch on the devices the batch spent', () => {
    const devices = new Map<string, DeviceCalls>([['BAT-1', { spentAtMs: [s(-30)] }]]);
    expect(
      planCalls(
        devices,
        [
          ['BAT-1', 'BAT-2'],
          ['BAT-1', 'BAT-2'],
        ],
        BUDGET,
        T,
      ),
    ).toEqual([T, s(30)]);
  });

  it('goes no earlier than a busy device allows', () => {
    expect(earliestCallAtMs({ spentAtMs: [], busyUntilMs: s(25) }, BUDGET, T)).toBe(s(25));
    expect(earliestCallAtMs({ spentAtMs: [], busyUntilMs: s(-5) }, BUDGET, T)).toBe(T);
  });

  it("holds a replace's cancel until its submission can follow at once, one slot left", () => {
    const device = new Map([['BAT-1', { spentAtMs: [s(-30)] }]]);
    expect(planTogether(device, [['BAT-1'], ['BAT-1']], BUDGET, T)).toEqual([s(30), s(30)]);
  });

  it('sends the steps of a change together at once when the slots are free', () => {
    expect(planTogether(new Map(), [['BAT-1'], ['BAT-1']], BUDGET, T)).toEqual([T, T]);
  });

  it('plans a change of more calls than the window holds one after another', () => {
    const device = new Map([['BAT-1', NONE]]);
    expect(planTogether(device, [['BAT-1'], ['BAT-1'], ['BAT-1']], BUDGET, T)).toEqual([
      T,
      T,
      s(60),
    ]);
  });

  it('refuses a step with no device', () => {
    expect(() => planCalls(new Map(), [[]], BUDGET, T)).toThrow(RangeError);
  });
});

describe('checkPlanDeadline', () => {
  const windowStartMs = s(120);
  it('lets a plan through whose last call goes by the lead time before the start', () => {
    expect(checkPlanDeadline([T, s(60)], { windowStartMs, leadMs: 60_000 })).toEqual({
      fits: true,
      lastCallAtMs: s(60),
    });
  });

  it('gives the earliest start the budget allows when the last call is too late', () => {
    expect(checkPlanDeadline([T, s(61)], { windowStartMs, leadMs: 60_000 })).toEqual({
      fits: false,
      lastCallAtMs: s(61),
      earliestStartMs: s(121),
    });
  });

  it('refuses an empty plan', () => {
    expect(() => checkPlanDeadline([], { windowStartMs, leadMs: 0 })).toThrow(RangeError);
  });
});

// Properties over small random cases: a few devices, offsets in seconds around T.
const budgetArb = fc.record({
  limit: fc.integer({ min: 1, max: 4 }),
  windowMs: fc.integer({ min: 1, max: 120 }).map((seconds) => seconds * 1000),
});
const DEVICE_IDS = ['A', 'B', 'C'];
const callsArb: fc.Arbitrary<DeviceCalls> = fc.record({
  spentAtMs: fc.array(fc.integer({ min: -150, max: 5 }).map(s), { maxLength: 6 }),
  busyUntilMs: fc.option(fc.integer({ min: -30, max: 90 }).map(s), { nil: undefined }),
});
const devicesArb = fc
  .tuple(callsArb, callsArb, callsArb)
  .map((calls) => new Map(DEVICE_IDS.map((id, i) => [id, calls[i] as DeviceCalls])));
const stepsArb = fc.array(fc.subarray(DEVICE_IDS, { minLength: 1 }), {
  minLength: 1,
  maxLength: 8,
});

/** Calls of `deviceId` in `[startMs, startMs + windowMs)`. */
const callsIn = (times: readonly number[], startMs: number, windowMs: number) =>
  times.filter((t) => t >= startMs && t < startMs + windowMs).length;

describe('plan properties', () => {
  it('never puts more than `limit` calls of a device in any window that holds a planned call', () => {
    fc.assert(
      fc.property(budgetArb, devicesArb, stepsArb, (budget, devices, steps) => {
        const plan = planCalls(devices, steps, budget, T);
        for (const deviceId of DEVICE_IDS) {
          const planned = plan.filter((_, i) => steps[i]?.includes(deviceId));
          const all = [...(devices.get(deviceId)?.spentAtMs ?? []), ...planned];
          // The fullest window through a planned call starts at a call within one window before it.
          for (const t of planned)
            for (const startMs of all.filter((c) => c > t - budget.windowMs && c <= t))
              expect(callsIn(all, startMs, budget.windowMs)).toBeLessThanOrEqual(budget.limit);
        }
      }),
    );
  });

  it('never plans a call while the device is busy, before the start or out of order', () => {
    fc.assert(
      fc.property(budgetArb, devicesArb, stepsArb, (budget, devices, steps) => {
        const plan = planCalls(devices, steps, budget, T);
        plan.forEach((atMs, i) => {
          expect(atMs).toBeGreaterThanOrEqual(i === 0 ? T : (plan[i - 1] as number));
          for (const deviceId of steps[i] ?? [])
            expect(atMs).toBeGreaterThanOrEqual(devices.get(deviceId)?.busyUntilMs ?? T);
        });
      }),
    );
  });

  it('plans each step as early as possible: a moment sooner, one of its devices has no slot', () => {
    fc.assert(
      fc.property(budgetArb, devicesArb, stepsArb, (budget, devices, steps) => {
        const plan = planCalls(devices, steps, budget, T);
        plan.forEach((atMs, i) => {
          const floorMs = i === 0 ? T : (plan[i - 1] as number);
          if (atMs === floorMs) return;
          const earlierMs = atMs - 1;
          const blocked = (steps[i] ?? []).some((deviceId) => {
            const known = devices.get(deviceId);
            if ((known?.busyUntilMs ?? -Infinity) > earlierMs) return true;
            const before = [
              ...(known?.spentAtMs ?? []),
              ...plan.slice(0, i).filter((_, j) => steps[j]?.includes(deviceId)),
            ];
            const held = before.filter((c) => c + budget.windowMs > earlierMs).length;
            return held >= budget.limit;
          });
          expect(blocked).toBe(true);
        });
      }),
    );
  });

  it('agrees with deviceBudgetAt: a device with a free slot now plans its call now', () => {
    fc.assert(
      fc.property(budgetArb, callsArb, (budget, calls) => {
        const state = deviceBudgetAt(calls, budget, T);
        const atMs = earliestCallAtMs(calls, budget, T);
        if (state.freeNow > 0) expect(atMs).toBe(T);
        else expect(atMs).toBe(state.freesAtMs[0]);
        expect(state.freesAtMs).toHaveLength(budget.limit - state.freeNow);
      }),
    );
  });
});

describe('deviceBudgetWords', () => {
  it.each([
    [{ limit: 2, windowMs: 60_000 }, 'two per device per minute'],
    [{ limit: 1, windowMs: 60_000 }, 'one per device per minute'],
    [{ limit: 12, windowMs: 30_000 }, '12 per device per 30 seconds'],
    [{ limit: 3, windowMs: 120_000 }, 'three per device per 2 minutes'],
  ])('words %o as "%s"', (budget, words) => {
    expect(deviceBudgetWords(budget)).toBe(words);
  });
});
