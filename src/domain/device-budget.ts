/**
 * The per-device budget of upstream calls as pure arithmetic (docs/decisions/007-device-call-budget.md,
 * section 1): the vendor allows `limit` requests per device in any rolling `windowMs`, reads and
 * writes alike, a batch counting once per device (vendor requirements a240636 section 7 and
 * b514499 section 6.1: 2 per minute). Every time here is epoch ms on the UPSTREAM's clock.
 *
 * The rule: a call at `t` holds one of its device's slots from `t` until `t + windowMs` (that
 * instant excluded), and a call may go only while fewer than `limit` slots are held. Then no
 * half-open window `[x, x + windowMs)` ever holds more than `limit` calls of a device. A `429`
 * with `Retry-After` (another client of the account spent the budget) holds every slot until
 * `busyUntilMs`.
 *
 * The vendor counts a call when it arrives, which a slow wire puts anywhere between the moment
 * the call was sent and its answer: `t` is the latest moment the call could have arrived. Until
 * the answer that is not known, so a call on its way counts from {@link unansweredCallCountsFromMs};
 * once answered, from the answer.
 */

import type { Region } from './token.ts';

/** Calls the vendor allows per device in one window, unless configured otherwise. */
export const DEFAULT_DEVICE_CALLS_PER_WINDOW = 2;
/** The vendor's window: one rolling minute, ms. */
export const DEVICE_CALL_WINDOW_MS = 60_000;

/**
 * When a call taken at `takenAtMs` and not answered yet counts from, epoch ms, upstream clock:
 * one window later, as though it arrived at the vendor the last moment a call answered within a
 * window could have (the upstream timeout, 10 s by default, and the retries of one call keep it
 * well within one). Its slot is thus held until two windows after it was taken, or a window after
 * its answer once that comes, so a call slow on its way in never lets a later call of the device
 * into the vendor's rolling window with it (docs/decisions/007-device-call-budget.md, section 1).
 * Not later than one window: a slot counted from further ahead is taken for one written before
 * the upstream clock went back, and dropped.
 */
export function unansweredCallCountsFromMs(takenAtMs: number, budget: DeviceCallBudget): number {
  return takenAtMs + budget.windowMs;
}

/** A device's budget: at most `limit` calls in any rolling `windowMs`. */
export interface DeviceCallBudget {
  /** Calls per window, at least 1. */
  limit: number;
  /** Length of the rolling window, ms. */
  windowMs: number;
}

/** Each region's device budget, as the BFF is configured (`EU_DEVICE_CALLS_PER_MINUTE`, ...). */
export type DeviceBudgets = Record<Region, DeviceCallBudget>;

/**
 * How many of a device's calls a read leaves free in its window for a change: one, so a read never
 * takes a device's last free call and an operator's change is never queued behind reads alone
 * (docs/architecture.md, Read model: "Within the budget"). None under a limit of one call, where a
 * read could otherwise never go.
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

/**
 * A device budget in an operator's words, e.g. "two per device per minute" for the vendor's 2
 * calls per 60,000 ms, "12 per device per 30 seconds" for a configured one. Every refusal and
 * explanation that names the limit takes it from here, so a region configured otherwise is
 * described as it is.
 */
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

/**
 * The budget as the BFF's answers say it (`limit` calls per `windowSeconds`, in a session's answer
 * and a `budget_too_tight` refusal), in ms; a part absent (an older BFF) is the vendor's.
 */
export function deviceCallBudgetOf(
  said: { limit?: number | undefined; windowSeconds?: number | undefined } | undefined,
): DeviceCallBudget {
  return {
    limit: said?.limit ?? DEFAULT_DEVICE_CALLS_PER_WINDOW,
    windowMs: said?.windowSeconds === undefined ? DEVICE_CALL_WINDOW_MS : said.windowSeconds * 1000,
  };
}

/** What is known of one device's recent calls. */
export interface DeviceCalls {
  /** When each call still within a window was made (any order; older ones are ignored). */
  spentAtMs: readonly number[];
  /** Until when the upstream said the device is busy (a 429's `Retry-After`); none when absent. */
  busyUntilMs?: number | undefined;
}

/** Where one device's budget stands at a moment. */
export interface DeviceBudgetNow {
  /** Slots a call may take now, 0 to `limit`. */
  freeNow: number;
  /** When each slot held now frees, ascending; `limit - freeNow` entries. */
  freesAtMs: number[];
}

/** Nothing spent: the state of a device the budget has no rows for. */
export const NO_CALLS: DeviceCalls = { spentAtMs: [] };

/**
 * How many of a device's slots are free at `nowMs`, and when each held one frees.
 *
 * @throws RangeError when `budget` is not a positive whole limit and a positive window.
 */
export function deviceBudgetAt(
  calls: DeviceCalls,
  budget: DeviceCallBudget,
  nowMs: number,
): DeviceBudgetNow {
  checkBudget(budget);
  const busyUntilMs = calls.busyUntilMs ?? -Infinity;
  const held = heldExpiries(calls.spentAtMs, budget.windowMs, nowMs);
  // The `limit` slots free at: now for a slot no call holds, else when its call's window ends.
  const slots = Array.from({ length: budget.limit }, (_, i) => {
    const expiry = held[held.length - budget.limit + i] ?? nowMs;
    return Math.max(expiry, busyUntilMs, nowMs);
  }).sort((a, b) => a - b);
  const freesAtMs = slots.filter((atMs) => atMs > nowMs);
  return { freeNow: budget.limit - freesAtMs.length, freesAtMs };
}

/**
 * The earliest moment at or after `fromMs` when a device may make one more call.
 *
 * @throws RangeError on an invalid `budget`.
 */
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
 * Plans a sequence of upstream calls, each over one or more devices, as early as the budget
 * allows: step `i` goes at `plan[i]`, no earlier than `fromMs` nor than step `i - 1`, and all its
 * devices at that one moment (a batch takes one slot on each). Devices absent from `devices` have
 * spent nothing. Greedy and optimal: taking a slot earlier never delays a later step, since a
 * slot taken earlier frees earlier.
 *
 * Examples: a replace on one device is `[[d], [d]]` (cancel, then submit); an undo of a
 * submission `[[d]]`; a batch `[[d1, d2, ...]]`.
 *
 * @returns each step's earliest time, epoch ms on the upstream clock, non-decreasing.
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
    // Each device's availability only grows with time, so the step goes at the latest of their
    // earliest moments.
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
 * Plans the steps of one change (a replace: cancel, then submit) to go together: at the first
 * moment the budget lets every step follow the one before at once, all of them at that moment
 * (docs/decisions/007-device-call-budget.md, section 2). A replace whose first call went while its
 * second waited would leave the device with its old window cancelled and the new one not sent for
 * up to a minute, across a restart of the BFF, or for good should another change take the new
 * window meanwhile; the old command stays in force until the new one can follow it.
 *
 * @returns each step's time, epoch ms on the upstream clock, all equal; as {@link planCalls} when
 *   a device has more calls in the change than its budget's limit.
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
  // More calls of one device than its window holds can never go together.
  if ([...callsOf.values()].some((count) => count > budget.limit)) return plan;
  // Each round starts where the last step of the round before could go; slots only free with
  // time, so this ends once every call spent before has left its window, at the latest.
  for (;;) {
    const firstMs = plan[0] as number;
    const lastMs = plan[plan.length - 1] as number;
    if (firstMs === lastMs) return plan;
    plan = planCalls(devices, steps, budget, lastMs);
  }
}

/**
 * Plans `count` calls one after another on one device (a replace: 2, an undo of a replace: 2).
 *
 * @throws RangeError on an invalid `budget`.
 */
export function planDeviceSequence(
  calls: DeviceCalls,
  count: number,
  budget: DeviceCallBudget,
  fromMs: number,
): number[] {
  const steps = Array.from({ length: count }, () => ['device']);
  return planCalls(new Map([['device', calls]]), steps, budget, fromMs);
}

/**
 * The moment one call over many devices (a batch, a batch cancel) may go: the latest of their
 * next free slots, since it takes one slot on each at one time.
 *
 * @throws RangeError on an invalid `budget` or no devices.
 */
export function planBatchAtMs(
  devices: ReadonlyMap<string, DeviceCalls>,
  deviceIds: readonly string[],
  budget: DeviceCallBudget,
  fromMs: number,
): number {
  return planCalls(devices, [deviceIds], budget, fromMs)[0] as number;
}

/** Whether a plan's last call goes in time for a new effective window. */
export type PlanDeadlineCheck =
  | { fits: true; lastCallAtMs: number }
  | {
      fits: false;
      lastCallAtMs: number;
      /** The earliest window start the budget allows: the last call plus the lead time, ms. */
      earliestStartMs: number;
    };

/**
 * Whether the last call of `plan` goes no later than `leadMs` before `windowStartMs`, the start of
 * the effective window it sends (docs/decisions/007-device-call-budget.md, section 2: a replace or
 * undo is refused before anything is sent when it cannot finish in time). When it does not, the
 * earliest start the budget allows.
 *
 * @throws RangeError for an empty plan.
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

/** When each call still holding a slot at `atMs` lets it go, ascending. */
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
