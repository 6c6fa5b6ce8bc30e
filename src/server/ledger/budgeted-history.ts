import type { StatusRecord } from '#domain/command.ts';
import { DeviceRateLimitedDetailsSchema } from '#domain/errors.ts';
import { deviceBudgetWords, type DeviceCallBudget } from '#domain/device-budget.ts';
import { isProblem, ProblemError } from '../http/problem.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import type { TakeSlots } from '../budget/step-calls.ts';
import type { HistoryReader } from './ledger-intent.ts';

/** For a 429 without `Retry-After`, ms. */
export const BUSY_WITHOUT_RETRY_AFTER_MS = 60_000;

/** Upstream clock: `details.retryAt` is on the BFF's, which a test's sandbox moves apart. */
export function busyUntilMs(problem: ProblemError, answeredAtMs: number): number {
  const waitS = Number(problem.headers['retry-after']);
  return (
    answeredAtMs +
    (Number.isFinite(waitS) && waitS > 0 ? waitS * 1000 : BUSY_WITHOUT_RETRY_AFTER_MS)
  );
}

/**
 * 429 `device_rate_limited` for a call the device budget had no slot for: nothing was sent.
 *
 * @param nextFreeAtMs when the call may go, epoch ms on the upstream's clock.
 */
export function budgetSpent(
  deviceIds: readonly string[],
  budget: DeviceCallBudget,
  nextFreeAtMs: number,
  nowMs: number,
): ProblemError {
  const waitS = Math.max(1, Math.ceil((nextFreeAtMs - nowMs) / 1000));
  const deviceId = deviceIds.length === 1 ? deviceIds[0] : undefined;
  return new ProblemError(
    429,
    'device_rate_limited',
    `${deviceId ?? 'A device of this change'} has had all its calls for this minute (the vendor allows ${deviceBudgetWords(budget)}). It takes the next one in ${waitS} second${waitS === 1 ? '' : 's'}.`,
    {
      details: DeviceRateLimitedDetailsSchema.parse({
        ...(deviceId ? { deviceId } : {}),
        retryAt: new Date(nextFreeAtMs).toISOString(),
      }),
      headers: { 'retry-after': String(waitS) },
    },
  );
}

/**
 * A history reader that spends the device's budget (decision 007, section 1): each page takes a
 * slot as a control call, since it settles a change. A vendor 429 marks the device busy and is
 * thrown as it came, never retried.
 *
 * @param options.take a queued change's step gives its own ({@link StepCalls}), so the read goes
 *   in the change's place.
 * @throws ProblemError: 429 `device_rate_limited`, or the upstream's refusal of a page.
 */
export function budgetedHistory(options: {
  budget: DeviceBudgetStore;
  upstream: Pick<UpstreamApi, 'historyPage'>;
  upstreamNow: () => number;
  take?: TakeSlots | undefined;
}): HistoryReader {
  const { budget, upstream, upstreamNow, take } = options;
  return async (caller, deviceId, query) => {
    const records: StatusRecord[] = [];
    for (let page = 1; ; page += 1) {
      const nowMs = upstreamNow();
      const reservation = take
        ? await take([deviceId], nowMs)
        : await budget.reserve({
            region: caller.region,
            deviceIds: [deviceId],
            kind: 'control',
            nowMs,
          });
      if (!reservation.granted)
        throw budgetSpent(
          [deviceId],
          budget.budgetOf(caller.region),
          reservation.nextFreeAtMs,
          nowMs,
        );
      let answer;
      try {
        answer = await upstream.historyPage(caller, deviceId, query, page);
      } catch (error) {
        if (isProblem(error, 'device_rate_limited')) {
          const answeredAtMs = upstreamNow();
          await budget.markBusy(
            caller.region,
            [deviceId],
            busyUntilMs(error, answeredAtMs),
            answeredAtMs,
          );
        }
        throw error;
      } finally {
        await budget.settle(reservation.slotIds, upstreamNow());
      }
      records.push(...answer.commands);
      if (!answer.more) return records;
    }
  };
}
