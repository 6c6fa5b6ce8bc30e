/**
 * The per-device budget of upstream calls (docs/decisions/007-device-call-budget.md, section 1):
 * at most `limit` calls per device in any rolling `windowMs`, reads and writes alike, a batch
 * counting once per device. A call at `t` holds a slot until `t + windowMs` (excluded); a 429's
 * `Retry-After` holds every slot until `busyUntilMs`. Times are epoch ms on the UPSTREAM's clock.
 */

import type { Region } from './token.ts';

export const DEFAULT_DEVICE_CALLS_PER_WINDOW = 2;
/** One rolling minute, ms. */
export const DEVICE_CALL_WINDOW_MS = 60_000;

/**
 * One window after it was taken: the vendor counts a call when it arrives, so an unanswered call
 * holds its slot as if it arrived as late as it could (decision record 007, section 1).
 */
export function unansweredCallCountsFromMs(takenAtMs: number, budget: DeviceCallBudget): number {
  return takenAtMs + budget.windowMs;
}

/** At most `limit` calls in any rolling `windowMs`. */
export interface DeviceCallBudget {
  /** At least 1. */
  limit: number;
  /** Ms. */
  windowMs: number;
}

/** Each region's device budget, as the BFF is configured (`EU_DEVICE_CALLS_PER_MINUTE`, ...). */
export type DeviceBudgets = Record<Region, DeviceCallBudget>;

/**
 * One, so a read never takes a device's last free call and a change never queues behind reads
 * (docs/architecture.md, Read model); none under a limit of one, where a read could never go.
 */
export function callsKeptForChanges(budget: DeviceCallBudget): number {
  return budget.limit > 1 ? 1 : 0;
}

const SMALL_NUMBER_WORDS = [
  'no',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
];

/** E.g. "two per device per minute": every refusal naming the limit takes it from here. */
export function deviceBudgetWords(budget: DeviceCallBudget): string {
  const count = SMALL_NUMBER_WORDS[budget.limit] ?? String(budget.limit);
  const seconds = Math.round(budget.windowMs / 1000);
  const per =
    budget.windowMs === DEVICE_CALL_WINDOW_MS
      ? 'minute'
      : seconds % 60 === 0
        ? `${seconds / 60} minutes`
        : `${seconds} seconds`;
  return `${count} per device per ${per}`;
}

/** From a BFF answer's `limit` and `windowSeconds`; a part absent (older BFF) is the vendor's. */
export function deviceCallBudgetOf(
  said: { limit?: number | undefined; windowSeconds?: number | undefined } | undefined,
): DeviceCallBudget {
  return {
    limit: said?.limit ?? DEFAULT_DEVICE_CALLS_PER_WINDOW,
    windowMs: said?.windowSeconds === undefined ? DEVICE_CALL_WINDOW_MS : said.windowSeconds * 1000,
  };
}

export interface DeviceCalls {
  /** Any order; older ones are ignored. */
  spentAtMs: readonly number[];
  /** A 429's `Retry-After`. */
  busyUntilMs?: number | undefined;
}

export interface DeviceBudgetNow {
  /** 0 to `limit`. */
  freeNow: number;
  /** Ascending; `limit - freeNow` entries. */
  freesAtMs: number[];
}

export const NO_CALLS: DeviceCalls = { spentAtMs: [] };

/** @throws RangeError when `budget` is not a positive whole limit and a positive window. */
export function deviceBudgetAt(
  calls: DeviceCalls,
  budget: DeviceCallBudget,
  nowMs: number,
): DeviceBudgetNow {
  checkBudget(budget);
  const busyUntilMs = calls.busyUntilMs ?? -Infinity;
  const held = heldExpiries(calls.spentAtMs, budget.windowMs, nowMs);
  const slots = Array.from({ length: budget.limit }, (_, i) => {
    const expiry = held[held.length - budget.limit + i] ?? nowMs;
    return Math.max(expiry, busyUntilMs, nowMs);
  }).sort((a, b) => a - b);
  const freesAtMs = slots.filter((atMs) => atMs > nowMs);
  return { freeNow: budget.limit - freesAtMs.length, freesAtMs };
}

/** @throws RangeError on an invalid `budget`. */
export function earliestCallAtMs(
  calls: DeviceCalls,
  budget: DeviceCallBudget,
  fromMs: number,
): number {
  checkBudget(budget);
  const startMs = Math.max(fromMs, calls.busyUntilMs ?? -Infinity);
  const held = heldExpiries(calls.spentAtMs, budget.windowMs, startMs);
  if (held.length < budget.limit) return startMs;
  // Free once all but `limit - 1` of the held slots have expired.
  return held[held.length - budget.limit] as number;
}

/**
 * Each step as early as the budget allows, all its devices at one moment (a batch takes one slot
 * on each); greedy is optimal, since a slot taken earlier frees earlier.
 * @returns each step's time, epoch ms on the upstream clock, non-decreasing.
 * @throws RangeError on an invalid `budget` or a step naming no device.
 */
export function planCalls(
  devices: ReadonlyMap<string, DeviceCalls>,
  steps: readonly (readonly string[])[],
  budget: DeviceCallBudget,
  fromMs: number,
): number[] {
  checkBudget(budget);
  const spent = new Map<string, number[]>();
  const plan: number[] = [];
  let atMs = fromMs;
  for (const step of steps) {
    if (step.length === 0) throw new RangeError('a planned call names no device');
    // Availability only grows with time: the step goes at the latest device's earliest moment.
    for (const deviceId of step) {
      const known = devices.get(deviceId) ?? NO_CALLS;
      const own = spent.get(deviceId) ?? [...known.spentAtMs];
      spent.set(deviceId, own);
      atMs = earliestCallAtMs({ spentAtMs: own, busyUntilMs: known.busyUntilMs }, budget, atMs);
    }
    for (const deviceId of step) spent.get(deviceId)?.push(atMs);
    plan.push(atMs);
  }
  return plan;
}

/**
 * All steps at the first moment they can follow each other at once (decision record 007,
 * section 2): a replace whose cancel went alone would leave the device with neither window.
 * @returns as {@link planCalls} when a device has more calls than its limit.
 * @throws RangeError on an invalid `budget` or a step naming no device.
 */
export function planTogether(
  devices: ReadonlyMap<string, DeviceCalls>,
  steps: readonly (readonly string[])[],
  budget: DeviceCallBudget,
  fromMs: number,
): number[] {
  let plan = planCalls(devices, steps, budget, fromMs);
  const callsOf = new Map<string, number>();
  for (const deviceId of steps.flat()) callsOf.set(deviceId, (callsOf.get(deviceId) ?? 0) + 1);
  if ([...callsOf.values()].some((count) => count > budget.limit)) return plan;
  // Slots only free with time, so this ends once every earlier call has left its window.
  for (;;) {
    const firstMs = plan[0] as number;
    const lastMs = plan[plan.length - 1] as number;
    if (firstMs === lastMs) return plan;
    plan = planCalls(devices, steps, budget, lastMs);
  }
}

/** @throws RangeError on an invalid `budget`. */
export function planDeviceSequence(
  calls: DeviceCalls,
  count: number,
  budget: DeviceCallBudget,
  fromMs: number,
): number[] {
  const steps = Array.from({ length: count }, () => ['device']);
  return planCalls(new Map([['device', calls]]), steps, budget, fromMs);
}

/** The latest of the devices' next free slots. @throws RangeError on bad `budget` or no devices. */
export function planBatchAtMs(
  devices: ReadonlyMap<string, DeviceCalls>,
  deviceIds: readonly string[],
  budget: DeviceCallBudget,
  fromMs: number,
): number {
  return planCalls(devices, [deviceIds], budget, fromMs)[0] as number;
}

export type PlanDeadlineCheck =
  | { fits: true; lastCallAtMs: number }
  | {
      fits: false;
      lastCallAtMs: number;
      /** The last call plus the lead time, ms. */
      earliestStartMs: number;
    };

/**
 * A replace or undo that cannot finish `leadMs` before its window is refused before anything is
 * sent (decision record 007, section 2). @throws RangeError for an empty plan.
 */
export function checkPlanDeadline(
  plan: readonly number[],
  deadline: { windowStartMs: number; leadMs: number },
): PlanDeadlineCheck {
  const lastCallAtMs = plan.at(-1);
  if (lastCallAtMs === undefined) throw new RangeError('an empty plan has no last call');
  if (lastCallAtMs <= deadline.windowStartMs - deadline.leadMs) return { fits: true, lastCallAtMs };
  return { fits: false, lastCallAtMs, earliestStartMs: lastCallAtMs + deadline.leadMs };
}

function heldExpiries(spentAtMs: readonly number[], windowMs: number, atMs: number): number[] {
  return spentAtMs
    .map((spent) => spent + windowMs)
    .filter((expiry) => expiry > atMs)
    .sort((a, b) => a - b);
}

function checkBudget(budget: DeviceCallBudget): void {
  if (!Number.isInteger(budget.limit) || budget.limit < 1)
    throw new RangeError(`a device budget needs a whole limit of at least 1, not ${budget.limit}`);
  if (!(budget.windowMs > 0))
    throw new RangeError(`a device budget needs a positive window, not ${budget.windowMs} ms`);
}
