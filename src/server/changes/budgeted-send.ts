import type { Region } from '#domain/token.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import type { TakeSlots } from '../budget/step-calls.ts';
import { budgetSpent, busyUntilMs } from '../ledger/budgeted-history.ts';

export interface BudgetedSend<T> {
  /** With no slot free nothing is sent: 429 `device_rate_limited`, recorded as not acted on. */
  send: () => Promise<CallResult<T>>;
  /** The ledger replayed an earlier answer. */
  release: () => Promise<void>;
}

/**
 * Wraps `call` so it spends one slot of each device's budget, as a control call (decision 007,
 * section 1).
 *
 * @param options.slotIds slots the caller reserved already (the route that answered "goes now").
 * @param options.upstreamNow the upstream's clock, epoch ms.
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
