import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { SandboxError } from '../sandbox-error.ts';

/**
 * Body of `PUT /_sandbox/faults` (docs/architecture.md, Upstream contract: Sandbox admin API); `{}`
 * clears every fault.
 */
export const FaultSettingsSchema = z.strictObject({
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  errorRate: z.number().min(0).max(1).optional(),
  errorStatus: z.number().int().min(500).max(599).optional(),
  rateLimitPerMinute: z.number().int().min(1).optional(),
  tokenTtlS: z.number().int().min(1).optional(),
  /**
   * How the token answer writes `expires_in`: a JSON number (the contract), a numeric string, or
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

/**
 * Injected faults and request counters of the vendor routes (docs/architecture.md, Upstream
 * contract: Sandbox admin API): latency, a share of 5xx answers, 429 with `Retry-After` past a
 * per-client limit per minute of sandbox time, and the token lifetime.
 */
export class FaultInjector {
  private settings: FaultSettings = {};
  private windows = new Map<string, { startMs: number; count: number }>();
  private counters: SandboxStats = emptyStats();

  constructor(private readonly random: () => number = Math.random) {}

  get current(): FaultSettings {
    return { ...this.settings };
  }

  /** Replaces the settings; rate windows start afresh. */
  set(settings: FaultSettings): void {
    this.settings = { ...settings };
    this.windows.clear();
  }

  get tokenTtlS(): number {
    return this.settings.tokenTtlS ?? DEFAULT_TOKEN_TTL_S;
  }

  /** `expires_in` as the token answer writes it (the `tokenExpiresIn` fault; a number by default). */
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
    throw new SandboxError(
      status === 503 ? 'unavailable' : 'upstream_error',
      `Injected fault: the token endpoint answers ${status} (PUT /_sandbox/faults {} clears it)`,
      undefined,
      { status },
    );
  }

  /** Counts a request of a vendor route. */
  count(route: string, isTokenRequest: boolean): void {
    if (isTokenRequest) this.counters.tokenRequests += 1;
    else this.counters.requests += 1;
    this.counters.byRoute[route] = (this.counters.byRoute[route] ?? 0) + 1;
  }

  /**
   * Waits the injected latency, then throws the injected error for a share `errorRate` of
   * requests (status `errorStatus`, default 503).
   */
  async beforeRequest(): Promise<void> {
    const { latencyMs, errorRate } = this.settings;
    if (latencyMs) await sleep(latencyMs);
    if (errorRate && this.random() < errorRate) {
      this.counters.faultsInjected += 1;
      const status = this.settings.errorStatus ?? 503;
      throw new SandboxError(
        status === 503 ? 'unavailable' : 'upstream_error',
        `Injected fault: the sandbox answers ${status} to a share ${errorRate} of requests (PUT /_sandbox/faults {} clears it)`,
        undefined,
        { status },
      );
    }
  }

  /**
   * Counts a client's request against `rateLimitPerMinute`.
   * @throws SandboxError 429 `rate_limited` with `Retry-After` (seconds) past the limit.
   */
  admit(clientId: string, nowMs: number): void {
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
    throw new SandboxError(
      'rate_limited',
      `Too many requests: at most ${limit} per minute for this client; retry after ${retryAfterS} s`,
      { limitPerMinute: limit, retryAfterS },
      { headers: { 'retry-after': String(retryAfterS) } },
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
