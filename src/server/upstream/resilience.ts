import {
  ConsecutiveBreaker,
  DelegateBackoff,
  circuitBreaker,
  handleWhen,
  isBrokenCircuitError,
  retry,
  wrap,
  type CircuitBreakerPolicy,
  type IPolicy,
  type IRetryBackoffContext,
} from 'cockatiel';
import type { Region } from '#domain/token.ts';
import { REGION_NAMES } from '#domain/token.ts';
import { ProblemError } from '../http/problem.ts';
import { discard, type UpstreamResponse } from './upstream-http.ts';

/** The first and two retries, enough for a blip. */
export const MAX_ATTEMPTS = 3;
/** Doubles per retry, with full jitter. */
export const BASE_BACKOFF_MS = 100;
export const MAX_BACKOFF_MS = 2_000;
/** Longer and the 429 goes to the browser instead. */
export const MAX_RETRY_AFTER_MS = 2_000;
export const BREAKER_THRESHOLD = 5;
export const DEFAULT_HALF_OPEN_AFTER_MS = 10_000;

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
// An unreachable token endpoint fails the call before it is sent: retried like the API.
const TRANSPORT_CODES = new Set([
  'upstream_timeout',
  'upstream_unreachable',
  'token_endpoint_timeout',
  'token_endpoint_unreachable',
]);

const isTransportFailure = (error: unknown) =>
  error instanceof ProblemError && TRANSPORT_CODES.has(error.problem.code);

const isServerFailure = (result: unknown) => (result as UpstreamResponse).statusCode >= 500;

/** Delta-seconds or HTTP date. */
export function retryAfterMs(response: UpstreamResponse, nowMs = Date.now()): number | undefined {
  const header = response.headers['retry-after'];
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const dateMs = Date.parse(value);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}

function isRetryableResult(result: unknown): boolean {
  const response = result as UpstreamResponse;
  if (!RETRYABLE_STATUS.has(response.statusCode)) return false;
  const waitMs = retryAfterMs(response);
  return waitMs === undefined || waitMs <= MAX_RETRY_AFTER_MS;
}

const backoff = new DelegateBackoff<IRetryBackoffContext<unknown>>((context) => {
  if ('value' in context.result) {
    const waitMs = retryAfterMs(context.result.value as UpstreamResponse);
    if (waitMs !== undefined) return waitMs;
  }
  const capMs = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (context.attempt - 1));
  return Math.round(Math.random() * capMs);
});

/**
 * Per region a circuit breaker that fails fast with 503 `upstream_circuit_open`, so a failing
 * region is not flooded; idempotent calls are retried honouring `Retry-After`, submissions never.
 */
export class UpstreamResilience {
  readonly #breakers: Record<Region, CircuitBreakerPolicy>;
  /** Built once: cockatiel policies hold no per-call state. */
  readonly #retried: Record<Region, IPolicy>;

  constructor(options: { halfOpenAfterMs?: number } = {}) {
    const breakerFor = () =>
      circuitBreaker(handleWhen(isTransportFailure).orWhenResult(isServerFailure), {
        halfOpenAfter: options.halfOpenAfterMs ?? DEFAULT_HALF_OPEN_AFTER_MS,
        breaker: new ConsecutiveBreaker(BREAKER_THRESHOLD),
      });
    this.#breakers = { eu: breakerFor(), au: breakerFor() };
    const policy = retry(handleWhen(isTransportFailure).orWhenResult(isRetryableResult), {
      maxAttempts: MAX_ATTEMPTS - 1,
      backoff,
    });
    policy.onRetry((reason) => {
      if ('value' in reason) void discard((reason.value as UpstreamResponse).body);
    });
    this.#retried = { eu: wrap(policy, this.#breakers.eu), au: wrap(policy, this.#breakers.au) };
  }

  /** @throws ProblemError 503 `upstream_circuit_open` while the region's circuit is open. */
  async execute(
    region: Region,
    idempotent: boolean,
    call: () => Promise<UpstreamResponse>,
  ): Promise<UpstreamResponse> {
    try {
      if (!idempotent) return await this.#breakers[region].execute(call);
      return await this.#retried[region].execute(call);
    } catch (error) {
      if (isBrokenCircuitError(error))
        throw new ProblemError(
          503,
          'upstream_circuit_open',
          `The ${REGION_NAMES[region]} upstream failed ${BREAKER_THRESHOLD} times in a row, so it is not called for a few seconds. Nothing was sent; try again shortly.`,
          { headers: { 'retry-after': '10' } },
        );
      throw error;
    }
  }

  states(): Record<Region, string> {
    const name = (policy: CircuitBreakerPolicy) =>
      ['closed', 'open', 'halfOpen', 'isolated'][policy.state] ?? 'unknown';
    return { eu: name(this.#breakers.eu), au: name(this.#breakers.au) };
  }
}
