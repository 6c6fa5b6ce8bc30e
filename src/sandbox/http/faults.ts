import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { randomInt, seededRandom } from '../fixtures/seeded-random.ts';
import { RateLimitError, SandboxError } from '../sandbox-error.ts';

export const FaultSettingsSchema = z.strictObject({
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  latencyJitterMs: z.number().int().min(0).max(60_000).optional(),
  latencySeed: z.string().max(100).optional(),
  errorRate: z.number().min(0).max(1).optional(),
  /** Seeds each route's own PRNG, so a fault test fails the same requests each run. */
  errorSeed: z.string().max(100).optional(),
  errorStatus: z.number().int().min(500).max(599).optional(),
  rateLimitPerMinute: z.number().int().min(1).optional(),
  tokenTtlS: z.number().int().min(1).optional(),
  // Some authorization servers omit or stringify it (RFC 6749 5.1 only recommends it).
  tokenExpiresIn: z.enum(['number', 'string', 'absent']).optional(),
  tokenErrorStatus: z.number().int().min(500).max(599).optional(),
});
export type FaultSettings = z.infer<typeof FaultSettingsSchema>;

/** Long enough for tests that jump the clock hours. */
export const DEFAULT_TOKEN_TTL_S = 86_400;

const WINDOW_MS = 60_000;

export interface SandboxStats {
  tokenRequests: number;
  requests: number;
  faultsInjected: number;
  byRoute: Record<string, number>;
}

function injected(status: number, message: string): SandboxError {
  return new SandboxError(status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR', message, {
    status,
  });
}

export class FaultInjector {
  private settings: FaultSettings = {};
  private latencyRandom: () => number = seededRandom('');
  private errorRandoms = new Map<string, () => number>();
  private windows = new Map<string, { startMs: number; count: number }>();
  private counters: SandboxStats = emptyStats();

  get current(): FaultSettings {
    return { ...this.settings };
  }

  set(settings: FaultSettings): void {
    this.settings = { ...settings };
    this.latencyRandom = seededRandom(settings.latencySeed ?? '');
    this.errorRandoms.clear();
    this.windows.clear();
  }

  get tokenTtlS(): number {
    return this.settings.tokenTtlS ?? DEFAULT_TOKEN_TTL_S;
  }

  tokenExpiresIn(ttlS: number): number | string | undefined {
    const as = this.settings.tokenExpiresIn ?? 'number';
    return as === 'number' ? ttlS : as === 'string' ? String(ttlS) : undefined;
  }

  beforeTokenRequest(): void {
    const status = this.settings.tokenErrorStatus;
    if (status === undefined) return;
    this.counters.faultsInjected += 1;
    throw injected(
      status,
      `Injected fault: the token endpoint answers ${status} (PUT /_sandbox/faults {} clears it)`,
    );
  }

  count(route: string, isTokenRequest: boolean): void {
    if (isTokenRequest) this.counters.tokenRequests += 1;
    else this.counters.requests += 1;
    this.counters.byRoute[route] = (this.counters.byRoute[route] ?? 0) + 1;
  }

  /**
   * Waits the injected latency before the rate limit counts the request (a slow wire on the way
   * in), then throws the injected error for a share `errorRate` of requests.
   */
  async beforeRequest(route: string): Promise<void> {
    const { errorRate } = this.settings;
    const waitMs = this.nextLatencyMs();
    if (waitMs > 0) await sleep(waitMs);
    if (errorRate && this.nextErrorDraw(route) < errorRate) {
      this.counters.faultsInjected += 1;
      const status = this.settings.errorStatus ?? 503;
      throw injected(
        status,
        `Injected fault: the sandbox answers ${status} to a share ${errorRate} of requests (PUT /_sandbox/faults {} clears it)`,
      );
    }
  }

  private nextErrorDraw(route: string): number {
    let random = this.errorRandoms.get(route);
    if (!random) {
      random = seededRandom(`${this.settings.errorSeed ?? ''} ${route}`);
      this.errorRandoms.set(route, random);
    }
    return random();
  }

  nextLatencyMs(): number {
    const { latencyMs = 0, latencyJitterMs = 0 } = this.settings;
    return (
      latencyMs + (latencyJitterMs > 0 ? randomInt(this.latencyRandom, 0, latencyJitterMs) : 0)
    );
  }

  /** @throws RateLimitError 429 past `rateLimitPerMinute`, with `Retry-After`. */
  admit(clientId: string, nowMs: number, deviceId?: string): void {
    const limit = this.settings.rateLimitPerMinute;
    if (limit === undefined) return;
    let window = this.windows.get(clientId);
    if (!window || nowMs - window.startMs >= WINDOW_MS || nowMs < window.startMs) {
      window = { startMs: nowMs, count: 0 };
      this.windows.set(clientId, window);
    }
    window.count += 1;
    if (window.count <= limit) return;
    this.counters.faultsInjected += 1;
    const retryAfterS = Math.max(1, Math.ceil((window.startMs + WINDOW_MS - nowMs) / 1000));
    throw new RateLimitError(
      `Rate limit exceeded: at most ${limit} requests per minute for this client; retry after ${retryAfterS} s`,
      { ...(deviceId === undefined ? {} : { deviceId }), limit, windowSeconds: WINDOW_MS / 1000 },
      {
        'retry-after': String(retryAfterS),
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(retryAfterS),
      },
    );
  }

  stats(): SandboxStats {
    return { ...this.counters, byRoute: { ...this.counters.byRoute } };
  }

  clearStats(): void {
    this.counters = emptyStats();
  }

  reset(): void {
    this.set({});
    this.clearStats();
  }
}

function emptyStats(): SandboxStats {
  return { tokenRequests: 0, requests: 0, faultsInjected: 0, byRoute: {} };
}
