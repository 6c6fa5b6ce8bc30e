/**
 * Coalesces identical status reads (docs/architecture.md, Budgets: status polling): concurrent
 * calls with the same key share one upstream request, and an answer is reused for `reuseMs`
 * (`STATUS_REUSE_MS`), so N tabs polling one command cost one upstream call per interval. With
 * `reuseMs` 0 nothing is reused once answered, but concurrent identical calls still share one
 * request. A failure is shared by the calls waiting for it, never reused. The key must include
 * who asks (region and client), since access differs per client.
 */
export class Coalescer<T> {
  readonly #entries = new Map<string, { answer: Promise<T>; reusableUntilMs: number }>();
  readonly #now: () => number;
  readonly #reuseMs: number;
  readonly #onAnswer: ((key: string, answer: T) => void) | undefined;

  /**
   * @param now clock, epoch ms
   * @param reuseMs how long an answer is reused, ms (0 = only while in flight)
   * @param onAnswer sees each upstream answer once (not once per caller sharing it), unless its
   *   key was forgotten while the request was in flight: what was asked before a
   *   {@link forgetPrefix} must not outlive it.
   */
  constructor(now: () => number, reuseMs: number, onAnswer?: (key: string, answer: T) => void) {
    this.#now = now;
    this.#reuseMs = reuseMs;
    this.#onAnswer = onAnswer;
  }

  fetch(key: string, send: () => Promise<T>): Promise<T> {
    const nowMs = this.#now();
    const entry = this.#entries.get(key);
    if (entry && nowMs < entry.reusableUntilMs) return entry.answer;
    this.#sweep(nowMs);
    const answer = send();
    const fresh = { answer, reusableUntilMs: Number.POSITIVE_INFINITY };
    this.#entries.set(key, fresh);
    answer.then(
      (value) => {
        // Forgotten while in flight: neither reused nor handed on.
        if (this.#entries.get(key) !== fresh) return;
        this.#onAnswer?.(key, value);
        if (this.#reuseMs > 0) fresh.reusableUntilMs = this.#now() + this.#reuseMs;
        else this.#entries.delete(key);
      },
      () => {
        if (this.#entries.get(key) === fresh) this.#entries.delete(key);
      },
    );
    return answer;
  }

  /** The answer kept for `key` and still reusable, if any (not one in flight). */
  async peek(key: string): Promise<T | undefined> {
    const entry = this.#entries.get(key);
    if (!entry || !Number.isFinite(entry.reusableUntilMs)) return undefined;
    return entry.answer.catch(() => undefined);
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
