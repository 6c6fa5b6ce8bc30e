import type { Region } from '../../domain/token.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import type { TakeSlots } from '../budget/step-calls.ts';
import { budgetSpent, busyUntilMs } from './budgeted-history.ts';

/** A control call (submit, cancel, batch, batch cancel) made to spend the devices' budget. */
export interface BudgetedSend<T> {
  /**
   * Takes a slot of each device, unless `slotIds` were taken already, then makes the call once;
   * gives the ledger as its `send`. With no slot free nothing is sent: a refusal, 429
   * `device_rate_limited` with the first device's wait, which the ledger records as not acted on.
   * A 429 from the upstream marks the devices busy until its `Retry-After`.
   */
  send: () => Promise<CallResult<T>>;
  /** Gives back slots taken before and never spent (the ledger replayed an earlier answer). */
  release: () => Promise<void>;
}

/**
 * Wraps `call` so it spends one slot of each of `deviceIds`' budget of upstream calls, as a
 * control call (docs/decisions/007-device-call-budget.md, section 1): the write path's routes
 * and the fleet runner's batches and cancels alike.
 *
 * @param options.slotIds slots the caller reserved already (the route that answered "goes now").
 * @param options.take how the call takes its slots when none were reserved: a queued change's
 *   step gives its own ({@link StepCalls}); default a reservation as a call straight from a route.
 * @param options.upstreamNow the upstream's clock, epoch ms: what the budget counts on.
 */
export function budgetedSend<T>(options: {
  budget: DeviceBudgetStore;
  region: Region;
  deviceIds: readonly string[];
  upstreamNow: () => number;
  call: () => Promise<CallResult<T>>;
  slotIds?: number[] | undefined;
  take?: TakeSlots | undefined;
}): BudgetedSend<T> {
  const { budget, region, deviceIds, upstreamNow, call, take } = options;
  let slots = options.slotIds;
  let sent = false;
  return {
    send: async () => {
      if (deviceIds.length > 0 && !slots) {
        const nowMs = upstreamNow();
        const reservation = take
          ? await take(deviceIds, nowMs)
          : await budget.reserve({ region, deviceIds, kind: 'control', nowMs });
        if (!reservation.granted)
          return {
            kind: 'refused',
            problem: budgetSpent(
              deviceIds,
              budget.budgetOf(region),
              reservation.nextFreeAtMs,
              nowMs,
            ),
          };
        slots = reservation.slotIds;
      }
      sent = true;
      const result = await call();
      const answeredAtMs = upstreamNow();
      if (slots) await budget.settle(slots, answeredAtMs);
      if (result.kind === 'refused' && result.status === 429 && deviceIds.length > 0)
        await budget.markBusy(
          region,
          deviceIds,
          busyUntilMs(result.problem, answeredAtMs),
          answeredAtMs,
        );
      return result;
    },
    release: async () => {
      if (!sent && slots && options.slotIds) await budget.release(slots);
    },
  };
}
