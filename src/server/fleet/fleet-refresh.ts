import { isFinalStatus } from '../../domain/command.ts';
import { deviceOutcomeOfRecord } from '../../domain/fleet-job.ts';
import type { Session } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { FleetBatchRow, FleetStore } from './fleet-store.ts';

/**
 * How often a job's statuses are read from the upstream at most, ms: the job page's poll
 * interval, so each page poll costs at most one upstream call per batch (docs/architecture.md,
 * Budgets: fleet dispatch).
 */
export const FLEET_REFRESH_INTERVAL_MS = 2_000;

/**
 * Keeps a job's per-device statuses moving while its page is open (docs/fleet-dispatch.md,
 * Progress): on a read of the job, at most once per {@link FLEET_REFRESH_INTERVAL_MS}, one status
 * call per sent batch, for the next device of that batch whose command is not final (round
 * robin). A batch whose commands are all final costs nothing. A failed read leaves the device as
 * it was; the next turn tries the next device.
 */
export class FleetRefresher {
  readonly #store: FleetStore;
  readonly #upstream: UpstreamApi;
  readonly #now: () => number;
  readonly #lastRefreshMs = new Map<string, number>();
  readonly #cursor = new Map<string, number>();

  constructor(options: { store: FleetStore; upstream: UpstreamApi; now: () => number }) {
    this.#store = options.store;
    this.#upstream = options.upstream;
    this.#now = options.now;
  }

  /** Refreshes `batches` of job `jobId` when its turn has come; returns whether it read any. */
  async refresh(
    session: Session,
    jobId: string,
    batches: readonly FleetBatchRow[],
  ): Promise<boolean> {
    const nowMs = this.#now();
    if (nowMs - (this.#lastRefreshMs.get(jobId) ?? 0) < FLEET_REFRESH_INTERVAL_MS) return false;
    this.#lastRefreshMs.set(jobId, nowMs);
    if (this.#lastRefreshMs.size > 1000)
      this.#lastRefreshMs.delete(this.#lastRefreshMs.keys().next().value ?? '');
    const turns = batches.flatMap((batch) => {
      const pending = batch.devices
        .map((device, position) => ({ device, position }))
        .filter(
          ({ device }) => device.commandId && !(device.status && isFinalStatus(device.status)),
        );
      if (batch.state !== 'sent' || pending.length === 0) return [];
      const key = `${jobId}:${batch.index}`;
      const cursor = this.#cursor.get(key) ?? 0;
      const next = pending.find(({ position }) => position >= cursor) ?? pending[0];
      if (!next) return [];
      this.#cursor.set(key, next.position + 1);
      return [{ batch, ...next }];
    });
    await Promise.all(
      turns.map(async ({ batch, device }) => {
        if (!device.commandId) return;
        try {
          const record = await this.#upstream.statusRecord(session, {
            deviceId: device.deviceId,
            commandId: device.commandId,
          });
          await this.#store.updateDeviceStatus(
            batch.jobId,
            batch.index,
            device.deviceId,
            deviceOutcomeOfRecord(record, nowMs),
          );
        } catch {
          // Left as it was; the next turn reads the next device.
        }
      }),
    );
    return turns.length > 0;
  }
}
