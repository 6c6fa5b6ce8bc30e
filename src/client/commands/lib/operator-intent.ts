import { useMutation, type MutateOptions } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../../lib/api-error.ts';

/** The headers tying a change to one intent (docs/architecture.md, Ledger): `Idempotency-Key`, and `Powerdeck-Undo-Of` for an undo. */
export interface IntentHeaders {
  idempotencyKey: string;
  undoOf?: string | undefined;
}

export interface Keyed {
  idempotencyKey?: string | undefined;
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
 * True when `error` leaves the outcome open (no answer, 5xx, 429, an undecided code): resending
 * with the same key is safe, the BFF replays a known key (docs/architecture.md, Ledger).
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

/** TanStack Query's `retry` for keyed changes: two more tries while open, each with the same key. */
export function retryWhileOutcomeOpen(failureCount: number, error: ApiError): boolean {
  return failureCount < MAX_INTENT_RETRIES && isOutcomeOpen(error);
}

/** The first wait before checking an open outcome again, ms; it doubles up to the longest. */
export const FIRST_CHECK_DELAY_MS = 2_000;
export const LONGEST_CHECK_DELAY_MS = 30_000;

/** `retryDelay` while the outcome is open: the server's `Retry-After`, else 2 s doubling to 30 s. */
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

/** `retry` until the outcome is decided, no limit, until the operator stops checking. */
export function retryUntilDecided(_failureCount: number, error: ApiError): boolean {
  return error.code !== CHECKING_STOPPED && isOutcomeOpen(error);
}

function fingerprint(variables: object): string {
  return JSON.stringify({ ...variables, idempotencyKey: undefined });
}

interface IntentRecord {
  fingerprint: string;
  key: string;
  open: boolean;
}

/**
 * Keys of one screen's intents: the key the variables carry, else the last intent's while it asked
 * the same and is open, else a new one. `settle` closes a decided intent, so a corrected resend
 * never gets the old refusal replayed.
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
  /** Check an open outcome until decided ({@link retryUntilDecided}) instead of two quick retries. */
  untilDecided?: boolean;
  /** How long a finished try's answer stays cached once unused, ms: 0 for an answer holding a secret. */
  gcTime?: number;
  mutationFn: (variables: KeyedVariables<TVariables>) => Promise<TData>;
  onSuccess?: (data: TData, variables: KeyedVariables<TVariables>) => unknown;
  onSettled?: (
    data: TData | undefined,
    error: ApiError | null,
    variables: KeyedVariables<TVariables>,
  ) => unknown;
}

/** An `untilDecided` change's open outcome: `checking` (next try at `nextTryAtMs`, epoch ms) or `stopped`. */
export type OutcomeChecking =
  { state: 'idle' } | { state: 'checking'; nextTryAtMs: number | undefined } | { state: 'stopped' };

/**
 * A mutation for one operator intent: every try carries the same `Idempotency-Key`, so a double
 * click, a lost answer or "Try again" never makes a second command. Adds `outcomeChecking` and
 * `stopChecking()` (no further try; the key stays open for the same values).
 */
export function useKeyedMutation<TData, TVariables extends object>(
  options: KeyedMutationOptions<TData, TVariables>,
) {
  const [keys] = useState(() => new IntentKeys());
  // The tries the operator stopped checking, by the variables object TanStack Query hands each.
  const [stoppedRuns] = useState(() => new WeakSet<object>());
  const [stopped, setStopped] = useState(false);
  const [nextTryAtMs, setNextTryAtMs] = useState<number>();
  const { onSettled, mutationFn, untilDecided = false, gcTime } = options;
  const mutation = useMutation({
    ...(gcTime === undefined ? {} : { gcTime }),
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
