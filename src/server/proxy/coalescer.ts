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

  /**
   * @param now clock, epoch ms
   * @param reuseMs how long a 200 answer is reused, ms (0 = only while in flight)
   */
  constructor(now: () => number, reuseMs: number) {
    this.#now = now;
    this.#reuseMs = reuseMs;
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
        if (shared.status === 200 && this.#reuseMs > 0)
          fresh.reusableUntilMs = this.#now() + this.#reuseMs;
        else if (this.#entries.get(key) === fresh) this.#entries.delete(key);
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

  #sweep(nowMs: number): void {
    if (this.#entries.size < 1000) return;
    for (const [key, entry] of this.#entries)
      if (entry.reusableUntilMs <= nowMs) this.#entries.delete(key);
  }
}
