import { isFinalStatus } from '../../domain/command.ts';
import { deviceOutcomeOfRecord } from '../../domain/fleet-job.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { Session } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import { batchKey, devicesOfBatch } from './fleet-runner.ts';
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
  readonly #ledger: Ledger | undefined;
  readonly #now: () => number;
  readonly #lastRefreshMs = new Map<string, number>();
  readonly #cursor = new Map<string, number>();

  /** @param options.ledger where a sent batch's device commands are found (its entry's look). */
  constructor(options: {
    store: FleetStore;
    upstream: UpstreamApi;
    now: () => number;
    ledger?: Ledger | undefined;
  }) {
    this.#store = options.store;
    this.#upstream = options.upstream;
    this.#ledger = options.ledger;
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
    const unconfirmed = batches.filter(
      (batch) =>
        batch.state === 'sent' &&
        batch.devices.some((device) => !device.commandId && !device.failure),
    );
    const confirmations = unconfirmed.map((batch) => this.#confirm(session, batch));
    await Promise.all([
      ...confirmations,
      ...turns.map(async ({ batch, device }) => {
        if (!device.commandId) return;
        try {
          const record = await this.#upstream.status(session, {
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
    ]);
    return turns.length > 0 || unconfirmed.length > 0;
  }

  /**
   * Finds the device commands of a sent batch not confirmed yet, through its ledger entry's look
   * (at most every few seconds), and writes those found, and those never found, into the job.
   */
  async #confirm(session: Session, batch: FleetBatchRow): Promise<void> {
    if (!this.#ledger) return;
    try {
      const confirmed = await this.#ledger.confirmBatchByKey(
        session,
        batchKey(batch.jobId, batch.index),
      );
      if (!confirmed) return;
      const nowMs = this.#now();
      for (const device of devicesOfBatch(
        batch.devices,
        confirmed.answer,
        confirmed.found,
        nowMs,
      )) {
        const before = batch.devices.find((d) => d.deviceId === device.deviceId);
        if (before?.commandId || before?.failure) continue;
        if (!device.commandId && !device.failure) continue;
        await this.#store.updateDeviceStatus(batch.jobId, batch.index, device.deviceId, device);
      }
    } catch {
      // Looked for again on the next read.
    }
  }
}
