import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { randomInt, seededRandom } from '../fixtures/seeded-random.ts';
import { RateLimitError, SandboxError } from '../sandbox-error.ts';

/** Body of `PUT /_sandbox/faults` (src/sandbox/README.md, Admin API); `{}` clears every fault. */
export const FaultSettingsSchema = z.strictObject({
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  /**
   * A slow wire that varies: each request waits `latencyMs` plus a share of this, drawn in turn
   * from a PRNG seeded with `latencySeed` (the same seed, the same sequence of waits).
   */
  latencyJitterMs: z.number().int().min(0).max(60_000).optional(),
  latencySeed: z.string().max(100).optional(),
  errorRate: z.number().min(0).max(1).optional(),
  /**
   * Which requests `errorRate` fails is drawn in turn, for each route, from a PRNG seeded with
   * this and the route (the same seed, the same requests of each route failed, however the
   * requests of different routes interleave), so a fault test takes the same path each run.
   */
  errorSeed: z.string().max(100).optional(),
  errorStatus: z.number().int().min(500).max(599).optional(),
  rateLimitPerMinute: z.number().int().min(1).optional(),
  tokenTtlS: z.number().int().min(1).optional(),
  /**
   * How the token answer writes its lifetime: a JSON number (the contract), a numeric string, or
   * not at all, as some authorization servers do (RFC 6749 5.1 only recommends it).
   */
  tokenExpiresIn: z.enum(['number', 'string', 'absent']).optional(),
  /** The token endpoint alone answers this 5xx (the API keeps working): a token endpoint down. */
  tokenErrorStatus: z.number().int().min(500).max(599).optional(),
});
export type FaultSettings = z.infer<typeof FaultSettingsSchema>;

/** Token lifetime without the `tokenTtlS` fault: long enough for tests that jump the clock hours. */
export const DEFAULT_TOKEN_TTL_S = 86_400;

const WINDOW_MS = 60_000;

/** Counters of `GET /_sandbox/stats` (our addition to the admin API). */
export interface SandboxStats {
  tokenRequests: number;
  requests: number;
  faultsInjected: number;
  /** Requests per `region METHOD route`, e.g. `eu GET /devices/:deviceId/commands/:commandId`. */
  byRoute: Record<string, number>;
}

/** The 5xx error of an injected fault: `SERVICE_UNAVAILABLE` for 503, else `INTERNAL_ERROR`. */
function injected(status: number, message: string): SandboxError {
  return new SandboxError(status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR', message, {
    status,
  });
}

/**
 * Injected faults and request counters of the vendor routes (src/sandbox/README.md, Admin API):
 * latency, a share of 5xx answers, 429 in the rate limit's shape (docs/upstream.md, Rate limit)
 * past a per-client limit per minute of sandbox time, and the token lifetime.
 */
export class FaultInjector {
  private settings: FaultSettings = {};
  /** The waits of `latencyJitterMs`, seeded anew by each `set`. */
  private latencyRandom: () => number = seededRandom('');
  /** The draws of `errorRate` per route, seeded anew by each `set`. */
  private errorRandoms = new Map<string, () => number>();
  private windows = new Map<string, { startMs: number; count: number }>();
  private counters: SandboxStats = emptyStats();

  get current(): FaultSettings {
    return { ...this.settings };
  }

  /** Replaces the settings; rate windows start afresh. */
  set(settings: FaultSettings): void {
    this.settings = { ...settings };
    this.latencyRandom = seededRandom(settings.latencySeed ?? '');
    this.errorRandoms.clear();
    this.windows.clear();
  }

  get tokenTtlS(): number {
    return this.settings.tokenTtlS ?? DEFAULT_TOKEN_TTL_S;
  }

  /**
   * The lifetime as the token answer writes it (the `tokenExpiresIn` fault; a number by default).
   */
  tokenExpiresIn(ttlS: number): number | string | undefined {
    const as = this.settings.tokenExpiresIn ?? 'number';
    return as === 'number' ? ttlS : as === 'string' ? String(ttlS) : undefined;
  }

  /**
   * @throws SandboxError with the `tokenErrorStatus` fault's status, before a token request is
   *   read.
   */
  beforeTokenRequest(): void {
    const status = this.settings.tokenErrorStatus;
    if (status === undefined) return;
    this.counters.faultsInjected += 1;
    throw injected(
      status,
      `Injected fault: the token endpoint answers ${status} (PUT /_sandbox/faults {} clears it)`,
    );
  }

  /** Counts a request of a vendor route. */
  count(route: string, isTokenRequest: boolean): void {
    if (isTokenRequest) this.counters.tokenRequests += 1;
    else this.counters.requests += 1;
    this.counters.byRoute[route] = (this.counters.byRoute[route] ?? 0) + 1;
  }

  /**
   * Waits the injected latency (`latencyMs`, plus up to `latencyJitterMs`), before the request is
   * counted against any rate limit: a slow wire on the way in, so the limit counts the request
   * when it arrives. Then throws the injected error for a share `errorRate` of requests (status
   * `errorStatus`, default 503), drawn from the PRNG of `route` seeded with `errorSeed`.
   *
   * @param route the request's route as the stats name it (`eu GET /devices/:deviceId`).
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

  /** The next request's wait, ms: `latencyMs` plus its draw of `latencyJitterMs`. */
  nextLatencyMs(): number {
    const { latencyMs = 0, latencyJitterMs = 0 } = this.settings;
    return (
      latencyMs + (latencyJitterMs > 0 ? randomInt(this.latencyRandom, 0, latencyJitterMs) : 0)
    );
  }

  /**
   * Counts a client's request against `rateLimitPerMinute`; `deviceId` is the device the request
   * names, if any, reported in the 429's details.
   * @throws RateLimitError 429 `RATE_LIMIT_EXCEEDED` with `Retry-After` (seconds) and
   *   `X-RateLimit-Limit`, `-Remaining`, `-Reset` (seconds until the window ends) past the limit.
   */
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

  /** Back to no faults and zero counters (admin `reset`). */
  reset(): void {
    this.set({});
    this.clearStats();
  }
}

function emptyStats(): SandboxStats {
  return { tokenRequests: 0, requests: 0, faultsInjected: 0, byRoute: {} };
}
