import type { Region } from '../../domain/token.ts';
import { RateLimitError } from '../sandbox-error.ts';

/** The vendor's limit: requests per device per rolling minute (docs/upstream.md, Rate limit). */
export const DEFAULT_DEVICE_CALLS_PER_MINUTE = 2;
/** The vendor's window, ms: one rolling minute. */
export const DEVICE_CALL_WINDOW_MS = 60_000;

/** A device's calls that reached the limit since the stats were cleared. */
export interface DeviceCallCounts {
  /** Calls about the device the limit looked at, admitted or refused. */
  calls: number;
  /** Of those, refused: answered 429, or left out of a batch. */
  refused: number;
}

/** What the limit said about one device of a call. */
export type DeviceCallOutcome =
  | { deviceId: string; admitted: true }
  | {
      deviceId: string;
      admitted: false;
      /** When the device has a free slot again, epoch ms, sandbox clock. */
      retryAtMs: number;
    };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The vendor's rate limit as the sandbox enforces it (docs/upstream.md, Rate limit): at most
 * `perMinute` admitted requests per device in any rolling minute of the sandbox clock. An admitted
 * call at `t` holds one of its device's slots until `t + 60 s` (that instant excluded); a refused
 * call holds none. Counted per region and device, whoever calls; in memory only (a restart
 * starts every device afresh). `perMinute` 0 turns the limit off: nothing is refused and nothing
 * recorded but the counts.
 */
export class DeviceCallLimit {
  private limit: number;
  /** Admission times still within a window, oldest first, per `region deviceId`. */
  private readonly held = new Map<string, number[]>();
  private counts = new Map<string, DeviceCallCounts>();

  /** @param startPerMinute the limit at start and after every reset (`SANDBOX_RATE_LIMIT_PER_MINUTE`). */
  constructor(private readonly startPerMinute: number = DEFAULT_DEVICE_CALLS_PER_MINUTE) {
    this.limit = startPerMinute;
  }

  /** Requests per device per rolling minute; 0 when the limit is off. */
  get perMinute(): number {
    return this.limit;
  }

  /**
   * Sets the limit; calls already admitted keep their slots (a lower limit applies at once). 0
   * turns it off and forgets them.
   */
  set(perMinute: number): void {
    this.limit = perMinute;
    if (perMinute === 0) this.held.clear();
  }

  /** Back to the start limit, every device afresh, counts zeroed (admin `reset`). */
  reset(): void {
    this.limit = this.startPerMinute;
    this.held.clear();
    this.clearStats();
  }

  /**
   * Takes one slot of each device at `nowMs` (epoch ms, sandbox clock), or refuses a device whose
   * slots are all held, with the time its next one frees. Devices are independent: a batch
   * takes the slots of the devices that have one (docs/upstream.md, Rate limit).
   */
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
      // The oldest call whose leaving brings the device under the limit (more than one when the
      // limit was lowered).
      const freeing = held[held.length - this.limit] ?? nowMs;
      return { deviceId, admitted: false, retryAtMs: freeing + DEVICE_CALL_WINDOW_MS };
    });
  }

  /**
   * Takes a slot of one device.
   * @throws RateLimitError 429 when the device has none (docs/upstream.md, Rate limit).
   */
  takeOne(region: Region, deviceId: string, nowMs: number): void {
    const [outcome] = this.take(region, [deviceId], nowMs);
    if (outcome && !outcome.admitted) throw this.refusal(outcome, nowMs);
  }

  /**
   * The 429 for a refused device: `{ code: "RATE_LIMIT_EXCEEDED", message, details: { deviceId,
   * limit, windowSeconds }, timestamp }` with `Retry-After` and `X-RateLimit-Reset` the whole
   * seconds until its next slot (at least 1), `X-RateLimit-Limit` and `X-RateLimit-Remaining: 0`
   * (docs/upstream.md, Rate limit). `also` names other refused devices of a batch.
   */
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

  /** Calls and refusals per `region deviceId` since the last clear (`GET /_sandbox/stats`). */
  stats(): Record<string, DeviceCallCounts> {
    return Object.fromEntries([...this.counts].map(([key, counts]) => [key, { ...counts }]));
  }

  clearStats(): void {
    this.counts = new Map();
  }
}

/** Whole seconds from `nowMs` until `atMs`, at least 1 (`Retry-After`). */
export function secondsUntil(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}
