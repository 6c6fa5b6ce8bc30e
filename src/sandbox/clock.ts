import { SandboxError } from './sandbox-error.ts';

/** Wall clock plus an offset that only grows, so commands progress without admin calls. */
export class SandboxClock {
  private offset = 0;

  constructor(private readonly wallNow: () => number = Date.now) {}

  now(): number {
    return this.wallNow() + this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  restore(offsetMs: number): void {
    this.offset = Math.max(0, offsetMs);
  }

  /** @throws SandboxError 400 when `targetMs` lies before the current sandbox time. */
  moveTo(targetMs: number): void {
    const nowMs = this.now();
    if (targetMs < nowMs)
      throw new SandboxError(
        'INVALID_REQUEST',
        `now: the sandbox clock only moves forward; it is already ${new Date(nowMs).toISOString()}`,
      );
    this.offset += targetMs - nowMs;
  }

  reset(): void {
    this.offset = 0;
  }
}
