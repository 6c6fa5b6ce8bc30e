import type { Region } from '#domain/token.ts';
import { RateLimitError } from '../sandbox-error.ts';

/** docs/upstream.md, Rate limit. */
export const DEFAULT_DEVICE_CALLS_PER_MINUTE = 2;
export const DEVICE_CALL_WINDOW_MS = 60_000;

export interface DeviceCallCounts {
  calls: number;
  /** Answered 429, or left out of a batch. */
  refused: number;
}

export type DeviceCallOutcome =
  | { deviceId: string; admitted: true }
  | {
      deviceId: string;
      admitted: false;
      retryAtMs: number;
    };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The vendor's rate limit (docs/upstream.md, Rate limit): an admitted call at `t` holds a slot of
 * its device until `t + 60 s` (excluded); a refused call holds none. Per region and device,
 * whoever calls; in memory only. `perMinute` 0 turns it off.
 */
export class DeviceCallLimit {
  private limit: number;
  private readonly held = new Map<string, number[]>();
  private counts = new Map<string, DeviceCallCounts>();

  constructor(private readonly startPerMinute: number = DEFAULT_DEVICE_CALLS_PER_MINUTE) {
    this.limit = startPerMinute;
  }

  get perMinute(): number {
    return this.limit;
  }

  /** Admitted calls keep their slots, so a lower limit applies at once. */
  set(perMinute: number): void {
    this.limit = perMinute;
    if (perMinute === 0) this.held.clear();
  }

  reset(): void {
    this.limit = this.startPerMinute;
    this.held.clear();
    this.clearStats();
  }

  /** Devices are independent: a batch takes the slots of the devices that have one. */
  take(region: Region, deviceIds: readonly string[], nowMs: number): DeviceCallOutcome[] {
    return deviceIds.map((deviceId) => {
      const key = `${region} ${deviceId}`;
      const counts = this.counts.get(key) ?? { calls: 0, refused: 0 };
      this.counts.set(key, counts);
      counts.calls += 1;
      if (this.limit === 0) return { deviceId, admitted: true };
      const held = (this.held.get(key) ?? []).filter(
        (admittedMs) => admittedMs > nowMs - DEVICE_CALL_WINDOW_MS,
      );
      this.held.set(key, held);
      if (held.length < this.limit) {
        held.push(nowMs);
        return { deviceId, admitted: true };
      }
      counts.refused += 1;
      // More than one call may have to leave when the limit was lowered.
      const freeing = held[held.length - this.limit] ?? nowMs;
      return { deviceId, admitted: false, retryAtMs: freeing + DEVICE_CALL_WINDOW_MS };
    });
  }

  takeOne(region: Region, deviceId: string, nowMs: number): void {
    const [outcome] = this.take(region, [deviceId], nowMs);
    if (outcome && !outcome.admitted) throw this.refusal(outcome, nowMs);
  }

  /** `also` names other refused devices of a batch. */
  refusal(
    outcome: Extract<DeviceCallOutcome, { admitted: false }>,
    nowMs: number,
    also: readonly string[] = [],
  ): RateLimitError {
    const retryAfterS = secondsUntil(outcome.retryAtMs, nowMs);
    const which =
      also.length > 0
        ? `devices ${[outcome.deviceId, ...also].join(', ')} have`
        : `device ${outcome.deviceId} has`;
    return new RateLimitError(
      `Rate limit exceeded: ${this.limit} requests per minute per device; ${which} no request left until ${iso(outcome.retryAtMs)}; retry after ${retryAfterS} s`,
      {
        deviceId: outcome.deviceId,
        limit: this.limit,
        windowSeconds: DEVICE_CALL_WINDOW_MS / 1000,
      },
      {
        'retry-after': String(retryAfterS),
        'x-ratelimit-limit': String(this.limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(retryAfterS),
      },
    );
  }

  stats(): Record<string, DeviceCallCounts> {
    return Object.fromEntries([...this.counts].map(([key, counts]) => [key, { ...counts }]));
  }

  clearStats(): void {
    this.counts = new Map();
  }
}

/** At least 1, as `Retry-After` needs. */
export function secondsUntil(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}
