/**
 * The lead time of a change: how long before a window's start the last upstream call that sends
 * it must go (docs/decisions/007-device-call-budget.md, section 2). One rule for the BFF, which
 * plans a replace or an undo with the device's budget and refuses it (409 `budget_too_tight`)
 * when its last call would go later, and for the timeline, which stops editing a window that
 * starts sooner (`src/client/features/timeline/lib/edit-lock.ts`).
 *
 * Why 2 minutes: a command must reach the device before its window starts, and the way from the
 * vendor to the device (its next check-in over a mobile link) takes up to a minute
 * (docs/upstream.md, Lifecycle: a device offline a minute after the start cancels the command
 * `startTimeExpire`); the second minute is the margin for the BFF's own wait for a slot that the
 * plan counted on (a 429 from another client of the account moves it up to a window later).
 */
export const CHANGE_LEAD_TIME_MS = 2 * 60_000;

/** `2 minutes`: the lead time in words. */
export const CHANGE_LEAD_TIME_WORDS = `${CHANGE_LEAD_TIME_MS / 60_000} minutes`;

/**
 * The latest moment the last call of a change may go for a window starting at `windowStartMs`
 * (epoch ms): its start minus {@link CHANGE_LEAD_TIME_MS}.
 */
export function latestCallForWindowMs(windowStartMs: number): number {
  return windowStartMs - CHANGE_LEAD_TIME_MS;
}
