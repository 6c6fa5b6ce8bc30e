import { MAX_HISTORY_RANGE_MS } from '#domain/history.ts';
import type { TelemetrySample } from '#domain/telemetry.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import { isProblem } from '../http/problem.ts';
import { busyUntilMs } from '../ledger/budgeted-history.ts';
import {
  LATEST_DATA_DEVICES,
  PAGE_SIZE,
  type DeviceAlarm,
  type DeviceTelemetrySettings,
  type UpstreamApi,
} from '../upstream/upstream-api.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';

/** How far a window's telemetry was read, and when the rest may be. */
export interface TelemetryRead {
  /** In the order the vendor gave them. */
  samples: TelemetrySample[];
  /** The window is read up to here, epoch ms; its end once complete. */
  readToMs: number;
  /** Upstream calls made. */
  calls: number;
  /** When the device has a read slot again; absent once the window is read. */
  nextFreeAtMs?: number | undefined;
}

export interface LatestSnapshot {
  samples: Map<string, TelemetrySample>;
  /** Devices with no read slot now (their budget is kept for changes), by when one frees. */
  deferred: Map<string, number>;
  calls: number;
}

type TelemetryUpstream = Pick<
  UpstreamApi,
  'telemetryPage' | 'latestDataOf' | 'alarmsPage' | 'configuration'
>;

/**
 * Telemetry reads inside the device's budget (decision 007, section 1): every call takes a `read`
 * slot first, which yields to the device's queued changes and never takes the last call a change
 * could still follow in the same window, and settles it once answered. A vendor 429 marks the
 * device busy until its `Retry-After` and is answered as a wait, never retried blind.
 */
export class BudgetedTelemetry {
  readonly #budget: DeviceBudgetStore;
  readonly #upstream: TelemetryUpstream;
  readonly #now: () => number;

  /** @param options.upstreamNow the upstream's clock, epoch ms. */
  constructor(options: {
    budget: DeviceBudgetStore;
    upstream: TelemetryUpstream;
    upstreamNow: () => number;
  }) {
    this.#budget = options.budget;
    this.#upstream = options.upstream;
    this.#now = options.upstreamNow;
  }

  /**
   * The samples of `[fromMs, endMs)`, one call per chunk of {@link PAGE_SIZE} sampling periods
   * (a page of 500 samples: 8 h 20 min at 60 s), each after a read slot. Stops at the first chunk
   * the budget has no slot for: the caller keeps what was read and goes on from `readToMs` at
   * `nextFreeAtMs`, so no call is spent twice.
   *
   * @param samplingPeriodMs the device's, so a chunk is one page; a chunk that still says "more"
   *   (the device samples faster) is read to its last page.
   * @throws ProblemError: the upstream's refusal other than 429, transport, 502.
   */
  async history(
    caller: UpstreamCaller,
    window: { deviceId: string; fromMs: number; endMs: number; samplingPeriodMs: number },
  ): Promise<TelemetryRead> {
    const { deviceId, endMs } = window;
    const chunkMs = Math.min(MAX_HISTORY_RANGE_MS, PAGE_SIZE * window.samplingPeriodMs);
    const samples: TelemetrySample[] = [];
    let calls = 0;
    let readToMs = window.fromMs;
    while (readToMs < endMs) {
      const range = { deviceId, startMs: readToMs, endMs: Math.min(endMs, readToMs + chunkMs) };
      // A chunk is kept whole or not at all: the next try reads it again from its first page.
      const chunk: TelemetrySample[] = [];
      for (let page = 1; ; page += 1) {
        const got = await this.#once(caller, [deviceId], () =>
          this.#upstream.telemetryPage(caller, range, page),
        );
        if (!got.answered) return { samples, readToMs, calls, nextFreeAtMs: got.nextFreeAtMs };
        calls += 1;
        chunk.push(...got.value.samples);
        if (!got.value.more) break;
      }
      samples.push(...chunk);
      readToMs = range.endMs;
    }
    return { samples, readToMs, calls };
  }

  /**
   * The device's alarms of `[startMs, endMs)`, each page after a read slot.
   *
   * @returns undefined when the budget had no slot (nothing is kept of a partial read).
   * @throws ProblemError as {@link BudgetedTelemetry.history}.
   */
  async alarms(
    caller: UpstreamCaller,
    range: { deviceId: string; startMs: number; endMs: number },
  ): Promise<{ alarms: DeviceAlarm[]; calls: number } | { nextFreeAtMs: number; calls: number }> {
    const alarms: DeviceAlarm[] = [];
    let calls = 0;
    for (let page = 1; ; page += 1) {
      const got = await this.#once(caller, [range.deviceId], () =>
        this.#upstream.alarmsPage(caller, range, page),
      );
      if (!got.answered) return { nextFreeAtMs: got.nextFreeAtMs, calls };
      calls += 1;
      alarms.push(...got.value.alarms);
      if (!got.value.more) return { alarms, calls };
    }
  }

  /**
   * The device's configuration (cut-offs, site limits, sampling period), after a read slot.
   *
   * @throws ProblemError as {@link BudgetedTelemetry.history}.
   */
  async configuration(
    caller: UpstreamCaller,
    deviceId: string,
  ): Promise<{ settings: DeviceTelemetrySettings } | { nextFreeAtMs: number }> {
    const got = await this.#once(caller, [deviceId], () =>
      this.#upstream.configuration(caller, deviceId),
    );
    return got.answered ? { settings: got.value } : { nextFreeAtMs: got.nextFreeAtMs };
  }

  /**
   * The latest sample of each device, by `latestData/query` of up to 100 devices: the vendor
   * counts it once per listed device, so each takes a read slot of each of its devices. Only the
   * devices with a read slot now are listed: a snapshot before a fleet job should not wait a
   * minute for the few devices whose budget is spent, nor take the call their changes keep; those
   * are in `deferred` with when they could be read, and the next devices take their places: every
   * call but the last lists 100.
   *
   * @throws ProblemError as {@link BudgetedTelemetry.history} (a 429 defers the chunk's devices).
   */
  async latest(caller: UpstreamCaller, deviceIds: readonly string[]): Promise<LatestSnapshot> {
    const samples = new Map<string, TelemetrySample>();
    const deferred = new Map<string, number>();
    const waiting = [...new Set(deviceIds)];
    let calls = 0;
    while (waiting.length > 0) {
      // Deferred devices leave no gap in a call: the next ones take their places, so a snapshot
      // of a fleet costs the calls of the devices it lists, not of those it asked about.
      const slots = new Map<string, number>();
      while (slots.size < LATEST_DATA_DEVICES && waiting.length > 0) {
        const taken = await this.#budget.reserveEach({
          region: caller.region,
          deviceIds: waiting.splice(0, LATEST_DATA_DEVICES - slots.size),
          kind: 'read',
          background: true,
          nowMs: this.#now(),
        });
        for (const [deviceId, atMs] of taken.deferred) deferred.set(deviceId, atMs);
        for (const [deviceId, slotId] of taken.slots) slots.set(deviceId, slotId);
      }
      const listed = [...slots.keys()];
      if (listed.length === 0) continue;
      const slotIds = [...slots.values()];
      try {
        calls += 1;
        const answer = await this.#upstream.latestDataOf(caller, listed);
        for (const [deviceId, sample] of answer)
          if (slots.has(deviceId)) samples.set(deviceId, sample);
      } catch (error) {
        if (!isProblem(error, 'device_rate_limited')) throw error;
        const answeredAtMs = this.#now();
        const untilMs = busyUntilMs(error, answeredAtMs);
        await this.#budget.markBusy(caller.region, listed, untilMs, answeredAtMs);
        for (const deviceId of listed) deferred.set(deviceId, untilMs);
      } finally {
        await this.#budget.settle(slotIds, this.#now());
      }
    }
    return { samples, deferred, calls };
  }

  async #once<T>(
    caller: UpstreamCaller,
    deviceIds: readonly string[],
    call: () => Promise<T>,
  ): Promise<{ answered: true; value: T } | { answered: false; nextFreeAtMs: number }> {
    const nowMs = this.#now();
    const reservation = await this.#budget.reserve({
      region: caller.region,
      deviceIds,
      kind: 'read',
      background: true,
      nowMs,
    });
    if (!reservation.granted) return { answered: false, nextFreeAtMs: reservation.nextFreeAtMs };
    try {
      return { answered: true, value: await call() };
    } catch (error) {
      if (!isProblem(error, 'device_rate_limited')) throw error;
      const answeredAtMs = this.#now();
      const untilMs = busyUntilMs(error, answeredAtMs);
      await this.#budget.markBusy(caller.region, deviceIds, untilMs, answeredAtMs);
      return { answered: false, nextFreeAtMs: untilMs };
    } finally {
      await this.#budget.settle(reservation.slotIds, this.#now());
    }
  }
}
