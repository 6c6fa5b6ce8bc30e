import { setTimeout as sleep } from 'node:timers/promises';

/** The vendor's limit: requests per device per rolling minute (docs/upstream.md, Rate limit). */
const CALLS_PER_WINDOW = 2;
/** Its window, with a second's margin for the vendor's clock and the network. */
const WINDOW_MS = 61_000;

/**
 * Keeps the suite within the vendor's rate limit when it runs against a real vendor, whose clock
 * it cannot move (docs/upstream.md, Rate limit; test/contract/README.md): before a call about
 * devices, waits until each has had fewer than 2 calls of the suite in the last minute, then
 * counts the call. Against the sandbox there is none: the tests move its clock instead
 * (`ContractTarget.nextMinute`).
 */
export class DevicePacer {
  /** When the suite called about each device, epoch ms, oldest first. */
  private readonly calls = new Map<string, number[]>();
  /** The devices of each batch the suite sent, for its cancel. */
  private readonly batches = new Map<string, readonly string[]>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly wait: (ms: number) => Promise<unknown> = sleep,
  ) {}

  /** Waits until every device has a free slot, then takes one each. */
  async before(deviceIds: readonly string[]): Promise<void> {
    await this.waitUntil(deviceIds, 1);
    this.record(deviceIds);
  }

  /** Counts a call about the devices without waiting (a call meant to meet the limit). */
  record(deviceIds: readonly string[]): void {
    const nowMs = this.now();
    for (const deviceId of deviceIds)
      this.calls.set(deviceId, [...this.held(deviceId, nowMs), nowMs]);
  }

  /** Waits until every device has all its slots free. */
  async untilFree(deviceIds: readonly string[]): Promise<void> {
    await this.waitUntil(deviceIds, CALLS_PER_WINDOW);
  }

  /** Waits until every device has at least `slots` free slots. */
  private async waitUntil(deviceIds: readonly string[], slots: number): Promise<void> {
    for (;;) {
      const nowMs = this.now();
      const waitMs = Math.max(
        0,
        ...deviceIds.map((deviceId) => this.freeAtMs(deviceId, slots) - nowMs),
      );
      if (waitMs === 0) return;
      await this.wait(waitMs);
    }
  }

  /** Remembers a batch's devices, so its cancel is paced on them. */
  rememberBatch(batchCommandId: string, deviceIds: readonly string[]): void {
    this.batches.set(batchCommandId, deviceIds);
  }

  /** The devices of a batch the suite sent; none for another one. */
  devicesOf(batchCommandId: string): readonly string[] {
    return this.batches.get(batchCommandId) ?? [];
  }

  private held(deviceId: string, nowMs: number): number[] {
    return (this.calls.get(deviceId) ?? []).filter((atMs) => atMs > nowMs - WINDOW_MS);
  }

  /** When the device has `slots` free slots, epoch ms (0 when it has them now). */
  private freeAtMs(deviceId: string, slots: number): number {
    const held = this.held(deviceId, this.now());
    // The call whose leaving frees the last of the slots needed.
    const leaving = held[held.length - (CALLS_PER_WINDOW - slots) - 1];
    return leaving === undefined ? 0 : leaving + WINDOW_MS;
  }
}
