import { useMutation, type MutateOptions } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApiError } from '../../lib/api-error.ts';

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
  mutationFn: (variables: KeyedVariables<TVariables>) => Promise<TData>;
  onSuccess?: (data: TData, variables: KeyedVariables<TVariables>) => unknown;
  onSettled?: (
    data: TData | undefined,
    error: ApiError | null,
    variables: KeyedVariables<TVariables>,
  ) => unknown;
}

/**
 * A mutation that changes commands on behalf of one operator intent: each `mutate` gets its
 * `Idempotency-Key` from {@link IntentKeys}, and TanStack Query retries it while its outcome is
 * open ({@link retryWhileOutcomeOpen}); both repeat the same key, so a double click, a retry after
 * a lost answer or the operator's "Try again" (`mutate(mutation.variables)`) never makes a second
 * command or batch.
 */
export function useKeyedMutation<TData, TVariables extends object>(
  options: KeyedMutationOptions<TData, TVariables>,
) {
  const [keys] = useState(() => new IntentKeys());
  const { onSettled } = options;
  const mutation = useMutation({
    mutationFn: options.mutationFn,
    retry: retryWhileOutcomeOpen,
    ...(options.onSuccess ? { onSuccess: options.onSuccess } : {}),
    onSettled: (data: TData | undefined, error: ApiError | null, variables) => {
      keys.settle(variables.idempotencyKey, error);
      return onSettled?.(data, error, variables);
    },
  });
  const keyed = (variables: TVariables & Keyed): KeyedVariables<TVariables> => ({
    ...variables,
    idempotencyKey: keys.keyFor(variables),
  });
  return {
    ...mutation,
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
