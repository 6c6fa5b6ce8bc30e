import { useMutation, type MutateOptions } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../../lib/api-error.ts';

/**
 * The headers that tie a change to one operator intent (docs/architecture.md, Ledger): its
 * `Idempotency-Key`, and for an undo the key of the change it reverses (`Powerdeck-Undo-Of`).
 */
export interface IntentHeaders {
  idempotencyKey: string;
  undoOf?: string | undefined;
}

/** What a keyed mutation's variables carry besides their own fields. */
export interface Keyed {
  /** Made once per intent by {@link IntentKeys}; absent when the caller has none yet. */
  idempotencyKey?: string | undefined;
  /** The `Idempotency-Key` of the change this one undoes. */
  undoOf?: string | undefined;
}

/** Problem codes that say nothing was decided yet: the same intent may be sent again. */
const UNDECIDED_CODES = new Set([
  'network_error',
  'idempotency_in_progress',
  'window_unsettled',
  'reconciliation_pending',
]);

/**
 * True when `error` leaves the outcome of a change open: no answer, a 5xx (the BFF's
 * `outcome_unknown` among them), 429, or a code that says the change is still being decided.
 * Sending the same intent again with the same key is then safe: the BFF answers a key it has
 * seen with the stored answer and never sends it upstream twice (docs/architecture.md, Ledger).
 */
export function isOutcomeOpen(error: ApiError): boolean {
  return (
    error.status === 0 ||
    error.status === 429 ||
    error.status >= 500 ||
    UNDECIDED_CODES.has(error.code)
  );
}

const MAX_INTENT_RETRIES = 2;

/**
 * TanStack Query's `retry` for keyed changes: up to two more tries while the outcome is open.
 * Each try repeats the mutation's variables, so it carries the same `Idempotency-Key`.
 */
export function retryWhileOutcomeOpen(failureCount: number, error: ApiError): boolean {
  return failureCount < MAX_INTENT_RETRIES && isOutcomeOpen(error);
}

/** The first wait before checking an open outcome again, ms; it doubles up to the longest. */
export const FIRST_CHECK_DELAY_MS = 2_000;
/** The longest wait between two checks of an open outcome, ms. */
export const LONGEST_CHECK_DELAY_MS = 30_000;

/**
 * TanStack Query's `retryDelay` for a change whose outcome is open: the server's `Retry-After`
 * when it gave one (the device's next call, a lease running out), else 2 s doubling to 30 s.
 * `failureCount` is TanStack Query's (0 on the first failure).
 */
export function outcomeCheckDelayMs(failureCount: number, error: ApiError): number {
  if (error.retryAfterMs !== undefined) return Math.max(1_000, error.retryAfterMs);
  return Math.min(FIRST_CHECK_DELAY_MS * 2 ** failureCount, LONGEST_CHECK_DELAY_MS);
}

/** The code of the error a try ends with once the operator stopped checking its outcome. */
export const CHECKING_STOPPED = 'checking_stopped';

const checkingStopped = () =>
  new ApiError({
    status: 0,
    code: CHECKING_STOPPED,
    title: 'Stopped checking',
    detail: 'You stopped checking the outcome of this change; it was not sent again.',
  });

/**
 * TanStack Query's `retry` for a change checked until its outcome is decided: again while it is
 * open, with no limit of tries, until the operator stops checking.
 */
export function retryUntilDecided(_failureCount: number, error: ApiError): boolean {
  return error.code !== CHECKING_STOPPED && isOutcomeOpen(error);
}

function fingerprint(variables: object): string {
  return JSON.stringify({ ...variables, idempotencyKey: undefined });
}

/** The key of one intent: what it asks for, and whether its outcome is still open. */
interface IntentRecord {
  fingerprint: string;
  key: string;
  open: boolean;
}

/**
 * Keys of one form's or one screen's intents. `keyFor` gives the key to send: the key already
 * carried by the variables (a "Try again" of `mutation.variables`), else the key of the last intent
 * when it asked for the same and its outcome is still open (a second click, a retry after no
 * answer), else a new one. `settle` closes an intent once it has an answer that decides it (a
 * success or a refusal), so the next attempt, even with the same values, is a new intent: a
 * refused command sent again after the operator fixed the cause must not get the old refusal
 * replayed.
 */
export class IntentKeys {
  #last: IntentRecord | undefined;

  keyFor(variables: Keyed & object): string {
    const print = fingerprint(variables);
    if (variables.idempotencyKey) {
      this.#last = { fingerprint: print, key: variables.idempotencyKey, open: true };
      return variables.idempotencyKey;
    }
    const previous = this.#last;
    if (previous?.open && previous.fingerprint === print) return previous.key;
    const key = crypto.randomUUID();
    this.#last = { fingerprint: print, key, open: true };
    return key;
  }

  settle(key: string, error: ApiError | null): void {
    if (this.#last?.key !== key) return;
    this.#last.open = error !== null && isOutcomeOpen(error);
  }
}

/** A keyed mutation's variables as sent: with the intent's key. */
export type KeyedVariables<TVariables> = TVariables & IntentHeaders;

interface KeyedMutationOptions<TData, TVariables> {
  /**
   * Check an open outcome until it is decided ({@link retryUntilDecided}), waiting
   * {@link outcomeCheckDelayMs} between tries, instead of two quick retries. The screen then
   * shows {@link OutcomeChecking} and offers to stop.
   */
  untilDecided?: boolean;
  mutationFn: (variables: KeyedVariables<TVariables>) => Promise<TData>;
  onSuccess?: (data: TData, variables: KeyedVariables<TVariables>) => unknown;
  onSettled?: (
    data: TData | undefined,
    error: ApiError | null,
    variables: KeyedVariables<TVariables>,
  ) => unknown;
}

/**
 * Where an `untilDecided` change stands while its outcome is open: `checking` while it waits for
 * the next try (`nextTryAtMs`, epoch ms) or makes it, `stopped` once the operator stopped
 * checking (the form keeps its values; submitting them again checks the same intent first).
 */
export type OutcomeChecking =
  { state: 'idle' } | { state: 'checking'; nextTryAtMs: number | undefined } | { state: 'stopped' };

/**
 * A mutation that changes commands on behalf of one operator intent: each `mutate` gets its
 * `Idempotency-Key` from {@link IntentKeys}, and TanStack Query retries it while its outcome is
 * open ({@link retryWhileOutcomeOpen}, or {@link retryUntilDecided} with `untilDecided`); every
 * try repeats the same key, so a double click, a retry after a lost answer or the operator's
 * "Try again" (`mutate(mutation.variables)`) never makes a second command or batch.
 *
 * Besides TanStack Query's mutation it returns `outcomeChecking` ({@link OutcomeChecking}) and
 * `stopChecking()`, which lets the current intent go: no further try is sent (one already under
 * way still lands, and its answer still refreshes the histories), the mutation is reset, and the
 * intent's key stays open for the next submission of the same values.
 */
export function useKeyedMutation<TData, TVariables extends object>(
  options: KeyedMutationOptions<TData, TVariables>,
) {
  const [keys] = useState(() => new IntentKeys());
  // The tries the operator stopped checking, by the variables object TanStack Query hands each.
  const [stoppedRuns] = useState(() => new WeakSet<object>());
  const [stopped, setStopped] = useState(false);
  const [nextTryAtMs, setNextTryAtMs] = useState<number>();
  const { onSettled, mutationFn, untilDecided = false } = options;
  const mutation = useMutation({
    mutationFn: (variables: KeyedVariables<TVariables>) =>
      stoppedRuns.has(variables) ? Promise.reject(checkingStopped()) : mutationFn(variables),
    retry: untilDecided ? retryUntilDecided : retryWhileOutcomeOpen,
    ...(untilDecided
      ? {
          retryDelay: (failureCount: number, error: ApiError) => {
            const delayMs = outcomeCheckDelayMs(failureCount, error);
            if (error.code !== CHECKING_STOPPED) setNextTryAtMs(Date.now() + delayMs);
            return delayMs;
          },
        }
      : {}),
    ...(options.onSuccess ? { onSuccess: options.onSuccess } : {}),
    onSettled: (data: TData | undefined, error: ApiError | null, variables) => {
      // A stopped intent is still open: the next submission of the same values keeps its key.
      if (error?.code !== CHECKING_STOPPED) keys.settle(variables.idempotencyKey, error);
      return onSettled?.(data, error, variables);
    },
  });
  const keyed = (variables: TVariables & Keyed): KeyedVariables<TVariables> => {
    setStopped(false);
    setNextTryAtMs(undefined);
    return { ...variables, idempotencyKey: keys.keyFor(variables) };
  };
  const open =
    mutation.isPending && mutation.failureReason !== null && isOutcomeOpen(mutation.failureReason);
  const outcomeChecking: OutcomeChecking = stopped
    ? { state: 'stopped' }
    : untilDecided && open
      ? { state: 'checking', nextTryAtMs }
      : { state: 'idle' };
  return {
    ...mutation,
    outcomeChecking,
    stopChecking: () => {
      if (mutation.variables) stoppedRuns.add(mutation.variables);
      mutation.reset();
      setStopped(true);
    },
    reset: () => {
      mutation.reset();
      setStopped(false);
    },
    mutate: (
      variables: TVariables & Keyed,
      callbacks?: MutateOptions<TData, ApiError, KeyedVariables<TVariables>>,
    ) => mutation.mutate(keyed(variables), callbacks),
    mutateAsync: (
      variables: TVariables & Keyed,
      callbacks?: MutateOptions<TData, ApiError, KeyedVariables<TVariables>>,
    ) => mutation.mutateAsync(keyed(variables), callbacks),
  };
}
