import type { UpstreamResponse } from '../upstream/upstream-http.ts';
import { MAX_PASS_THROUGH_BYTES, readCapped } from '../upstream/upstream-http.ts';

/** An upstream answer read into memory so several browsers can get it. */
export interface SharedAnswer {
  status: number;
  headers: UpstreamResponse['headers'];
  body: string;
}

/**
 * Coalesces identical status GETs (docs/architecture.md, Budgets: status polling): concurrent calls
 * with the same key share one upstream request, and a 200 answer is reused for `reuseMs`
 * (`STATUS_REUSE_MS`), so N tabs polling one command cost one upstream call per interval. With
 * `reuseMs` 0 nothing is reused once answered, but concurrent identical calls still share one
 * request. The key must include who asks (region and client), since access differs per client.
 */
export class Coalescer {
  readonly #entries = new Map<string, { answer: Promise<SharedAnswer>; reusableUntilMs: number }>();
  readonly #now: () => number;
  readonly #reuseMs: number;
  readonly #onAnswer: ((key: string, answer: SharedAnswer) => void) | undefined;

  /**
   * @param now clock, epoch ms
   * @param reuseMs how long a 200 answer is reused, ms (0 = only while in flight)
   * @param onAnswer sees each upstream answer once (not once per caller sharing it), unless its
   *   key was forgotten while the request was in flight: what was asked before a
   *   {@link forgetPrefix} must not outlive it.
   */
  constructor(
    now: () => number,
    reuseMs: number,
    onAnswer?: (key: string, answer: SharedAnswer) => void,
  ) {
    this.#now = now;
    this.#reuseMs = reuseMs;
    this.#onAnswer = onAnswer;
  }

  fetch(key: string, send: () => Promise<UpstreamResponse>): Promise<SharedAnswer> {
    const nowMs = this.#now();
    const entry = this.#entries.get(key);
    if (entry && nowMs < entry.reusableUntilMs) return entry.answer;
    this.#sweep(nowMs);
    const answer = send().then(async (response) => ({
      status: response.statusCode,
      headers: response.headers,
      body: await readCapped(response.body, MAX_PASS_THROUGH_BYTES),
    }));
    const fresh = { answer, reusableUntilMs: Number.POSITIVE_INFINITY };
    this.#entries.set(key, fresh);
    answer.then(
      (shared) => {
        // Forgotten while in flight: neither reused nor handed on.
        if (this.#entries.get(key) !== fresh) return;
        this.#onAnswer?.(key, shared);
        if (shared.status === 200 && this.#reuseMs > 0)
          fresh.reusableUntilMs = this.#now() + this.#reuseMs;
        else this.#entries.delete(key);
      },
      () => {
        if (this.#entries.get(key) === fresh) this.#entries.delete(key);
      },
    );
    return answer;
  }

  /** Drops the answer kept or in flight for `key`: the next call asks the upstream again. */
  forget(key: string): void {
    this.#entries.delete(key);
  }

  /**
   * Drops every answer kept or in flight whose key starts with `prefix` (one client's): later
   * calls ask the upstream again, and an answer still in flight is neither reused nor handed to
   * `onAnswer`. Walks every entry: for rare events (an unbind), never per call.
   */
  forgetPrefix(prefix: string): void {
    for (const key of this.#entries.keys()) if (key.startsWith(prefix)) this.#entries.delete(key);
  }

  #sweep(nowMs: number): void {
    if (this.#entries.size < 1000) return;
    for (const [key, entry] of this.#entries)
      if (entry.reusableUntilMs <= nowMs) this.#entries.delete(key);
  }
}
