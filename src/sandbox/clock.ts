import { SandboxError } from './sandbox-error.ts';

/**
 * The sandbox clock: wall clock plus an offset that only grows (docs/architecture.md, Upstream
 * contract: Sandbox admin API). Wall time passing moves it too, so commands progress without admin
 * calls.
 */
export class SandboxClock {
  private offset = 0;

  constructor(private readonly wallNow: () => number = Date.now) {}

  /** Sandbox time, epoch milliseconds. */
  now(): number {
    return this.wallNow() + this.offset;
  }

  /** How far the sandbox clock runs ahead of the wall clock, in milliseconds. */
  get offsetMs(): number {
    return this.offset;
  }

  /** Restores a persisted offset (never below zero). */
  restore(offsetMs: number): void {
    this.offset = Math.max(0, offsetMs);
  }

  /**
   * Moves the clock to `targetMs`.
   * @throws SandboxError 400 when `targetMs` lies before the current sandbox time.
   */
  moveTo(targetMs: number): void {
    const nowMs = this.now();
    if (targetMs < nowMs)
      throw new SandboxError(
        'INVALID_REQUEST',
        `now: the sandbox clock only moves forward; it is already ${new Date(nowMs).toISOString()}`,
      );
    this.offset += targetMs - nowMs;
  }

  /** Back to the wall clock. */
  reset(): void {
    this.offset = 0;
  }
}
