import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { ProblemError } from '../http/problem.ts';

/** docs/security.md. */
export const DEFAULT_SIGN_IN_PER_IP_PER_MINUTE = 30;
export const DEFAULT_FAILED_SIGN_INS_PER_CLIENT = 10;
export const FAILED_SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

export interface SignInLimitOptions {
  perIpPerMinute?: number;
  failedPerClient?: number;
}

const tooMany = (retryAfterS: number, detail: string) =>
  new ProblemError(429, 'too_many_sign_ins', detail, {
    headers: { 'retry-after': String(Math.max(1, retryAfterS)) },
  });

/** In memory, this instance; 429 `too_many_sign_ins` with `Retry-After`. */
export async function perIpSignInLimit(
  app: FastifyInstance,
  options: SignInLimitOptions,
): Promise<onRequestHookHandler> {
  await app.register(rateLimit, { global: false });
  return app.rateLimit({
    max: options.perIpPerMinute ?? DEFAULT_SIGN_IN_PER_IP_PER_MINUTE,
    timeWindow: 60_000,
    errorResponseBuilder: (_request, context) =>
      tooMany(
        Math.ceil(context.ttl / 1000),
        `Too many sign-in attempts from this address. Wait ${context.after} and try again.`,
      ),
  });
}

/** OWASP ASVS; successful sign-ins are not counted: several operators share one client. */
export class FailedSignInLimiter {
  readonly #windows = new Map<string, { startMs: number; failures: number }>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(now: () => number, max = DEFAULT_FAILED_SIGN_INS_PER_CLIENT) {
    this.#now = now;
    this.#max = max;
  }

  check(key: string): void {
    const window = this.#current(key);
    if (window && window.failures >= this.#max) {
      const retryAfterS = Math.ceil(
        (window.startMs + FAILED_SIGN_IN_WINDOW_MS - this.#now()) / 1000,
      );
      throw tooMany(
        retryAfterS,
        `Too many failed sign-ins for this client ID. Wait ${Math.ceil(retryAfterS / 60)} minutes and check the secret with the partner.`,
      );
    }
  }

  recordFailure(key: string): void {
    const window = this.#current(key) ?? { startMs: this.#now(), failures: 0 };
    window.failures += 1;
    this.#windows.set(key, window);
    if (this.#windows.size > 10_000) this.#sweep();
  }

  #current(key: string) {
    const window = this.#windows.get(key);
    if (window && this.#now() - window.startMs >= FAILED_SIGN_IN_WINDOW_MS) {
      this.#windows.delete(key);
      return undefined;
    }
    return window;
  }

  #sweep(): void {
    const nowMs = this.#now();
    for (const [key, window] of this.#windows)
      if (nowMs - window.startMs >= FAILED_SIGN_IN_WINDOW_MS) this.#windows.delete(key);
  }
}
