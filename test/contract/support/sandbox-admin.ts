import { z } from 'zod';
import type { ContractHttp, ContractResponse } from './contract-http.ts';
import { UtcTimestampSchema } from '#domain/time.ts';

/** Fault settings of `PUT /_sandbox/faults` (src/sandbox/README.md, Admin API); `{}` clears them. */
export interface SandboxFaults {
  latencyMs?: number;
  errorRate?: number;
  errorStatus?: number;
  rateLimitPerMinute?: number;
  tokenTtlS?: number;
  tokenExpiresIn?: 'number' | 'string' | 'absent';
  tokenErrorStatus?: number;
}

const ClockSchema = z.object({ now: UtcTimestampSchema });

/**
 * The sandbox admin API (src/sandbox/README.md, Admin API): never part of the vendor contract,
 * only reachable when the suite knows an admin URL. Throws on any status but 2xx, naming the call.
 */
export class SandboxAdmin {
  constructor(private readonly http: ContractHttp) {}

  private async call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    json?: unknown,
  ): Promise<ContractResponse> {
    const response = await this.http.send({ server: 'admin', method, path, json });
    if (response.status >= 300)
      throw new Error(
        `${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`,
      );
    return response;
  }

  /** Back to the fixture: no bindings, no commands, clock = wall clock. */
  async reset(): Promise<void> {
    await this.call('POST', '/_sandbox/reset');
  }

  /** The sandbox clock, epoch milliseconds. */
  async nowMs(): Promise<number> {
    const response = await this.call('GET', '/_sandbox/clock');
    return Date.parse(ClockSchema.parse(response.body).now);
  }

  /** Moves the sandbox clock forward by `advanceMs`; due transitions run at once. */
  async advanceClock(advanceMs: number): Promise<void> {
    await this.call('POST', '/_sandbox/clock', { advanceMs });
  }

  /** Sets the sandbox clock to `iso` (forward only); due transitions run at once. */
  async setClock(iso: string): Promise<void> {
    await this.call('POST', '/_sandbox/clock', { now: iso });
  }

  /** Takes a device offline or faults it (or back). */
  async setDevice(deviceId: string, state: { online?: boolean; fault?: boolean }): Promise<void> {
    await this.call('PUT', `/_sandbox/devices/${encodeURIComponent(deviceId)}`, state);
  }

  /** Replaces the injected faults; `{}` clears them. */
  async setFaults(faults: SandboxFaults): Promise<void> {
    await this.call('PUT', '/_sandbox/faults', faults);
  }
}
