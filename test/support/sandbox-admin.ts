import { send, type TestResponse } from './http-client.ts';

/**
 * Fault settings of `PUT /_sandbox/faults` (docs/architecture.md, Upstream contract); `{}` clears
 * them.
 */
export interface SandboxFaults {
  latencyMs?: number;
  /** Each request waits `latencyMs` plus up to this, drawn from a PRNG seeded with `latencySeed`. */
  latencyJitterMs?: number;
  latencySeed?: string;
  /** A share of requests answered `errorStatus`, drawn from a PRNG seeded with `errorSeed`. */
  errorRate?: number;
  errorSeed?: string;
  errorStatus?: number;
  rateLimitPerMinute?: number;
  tokenTtlS?: number;
  tokenExpiresIn?: 'number' | 'string' | 'absent';
  tokenErrorStatus?: number;
}

/**
 * The sandbox admin API (docs/architecture.md, Upstream contract) for integration, fault and
 * e2e-style suites. Every call throws on a non-2xx answer, naming the call.
 */
export class SandboxAdmin {
  readonly #origin: string;

  constructor(sandboxOrigin: string) {
    this.#origin = sandboxOrigin;
  }

  async #call(method: string, path: string, json?: unknown): Promise<TestResponse> {
    const response = await send(this.#origin, {
      method,
      path: `/_sandbox${path}`,
      ...(json === undefined ? {} : { json }),
    });
    if (response.status >= 300)
      throw new Error(`sandbox admin ${method} ${path}: ${response.status} ${response.text}`);
    return response;
  }

  /** Back to the fixture: no bindings, no commands, clock = wall clock. */
  async reset(): Promise<void> {
    await this.#call('POST', '/reset');
  }

  /** Moves the sandbox clock forward; due transitions run at once. */
  async advanceClock(advanceMs: number): Promise<void> {
    await this.#call('POST', '/clock', { advanceMs });
  }

  /** Sets the sandbox clock to an instant (forward only). */
  async setClock(now: Date): Promise<void> {
    await this.#call('POST', '/clock', { now: now.toISOString() });
  }

  /** The sandbox clock, epoch milliseconds. */
  async nowMs(): Promise<number> {
    const response = await this.#call('GET', '/clock');
    return Date.parse(response.json<{ now: string }>().now);
  }

  /**
   * Takes a device offline or faults it (or back), or sets what it does with commands (the
   * sandbox's behaviours: `follows`, `ignoresCommands`, `goesOffline`...; src/sandbox/README.md).
   */
  async setDevice(
    deviceId: string,
    state: { online?: boolean; fault?: boolean; behaviour?: string },
  ): Promise<void> {
    await this.#call('PUT', `/devices/${encodeURIComponent(deviceId)}`, state);
  }

  /** Replaces the injected faults; `{}` clears them. */
  async setFaults(faults: SandboxFaults): Promise<void> {
    await this.#call('PUT', '/faults', faults);
  }

  /** The sandbox's request counters, as `GET /_sandbox/stats` answers them. */
  async stats(): Promise<Record<string, unknown>> {
    return (await this.#call('GET', '/stats')).json<Record<string, unknown>>();
  }
}
