import type { FastifyBaseLogger } from 'fastify';
import type { StatusRecord } from '#domain/command.ts';
import { isFinalStatus } from '#domain/command.ts';
import { isFinalJobState, withSiteBinding, type FleetDeviceOutcome } from '#domain/fleet-job.ts';
import { LedgerOutcomeSchema } from '#domain/ledger.ts';
import type { AccountEvents } from '../events/account-events.ts';
import { personOf, sameAccount, type Account } from '#domain/account.ts';
import type { LedgerStore } from '../ledger/ledger-store.ts';
import type { Notifications } from '../notifications/notifications.ts';
import type { ReadModel, ReadModelChange } from '../read-model/read-model.ts';
import { batchKey, devicesOfBatch } from './fleet-runner.ts';
import type { FleetBatchRow, FleetJobRow, FleetStore } from './fleet-store.ts';

/** fleet-runner.ts. */
const BATCH_KEY = /^fleet-job:([0-9a-f-]{36}):batch:\d+$/;

/**
 * Keeps each fleet job's device outcomes live from the ledger and the read model, without an
 * upstream call (docs/fleet-dispatch.md, Progress). Once a job is settled its maker is told of
 * its failed devices, once.
 */
export class FleetOutcomes {
  readonly #store: FleetStore;
  readonly #ledger: LedgerStore;
  readonly #readModel: ReadModel;
  readonly #events: AccountEvents | undefined;
  readonly #notifications: Notifications | undefined;
  readonly #now: () => number;
  readonly #log: FastifyBaseLogger;

  constructor(options: {
    store: FleetStore;
    ledger: LedgerStore;
    readModel: ReadModel;
    events?: AccountEvents | undefined;
    notifications?: Notifications | undefined;
    now: () => number;
    log: FastifyBaseLogger;
  }) {
    this.#store = options.store;
    this.#ledger = options.ledger;
    this.#readModel = options.readModel;
    this.#events = options.events;
    this.#notifications = options.notifications;
    this.#now = options.now;
    this.#log = options.log;
    options.readModel.onChange((change) => this.#onChange(change));
  }

  /** @returns whether any changed (then the job is read again). */
  async sync(job: FleetJobRow, batches: readonly FleetBatchRow[]): Promise<boolean> {
    const account: Account = { region: job.region, clientId: job.clientId };
    // The devices of a site the account unbound are read no more: those not ended end so.
    const unbound = await this.#readModel.unboundOf(account, [
      ...new Set(
        batches
          .filter((batch) => batch.state === 'sent')
          .flatMap((batch) => batch.devices.map((device) => device.deviceId)),
      ),
    ]);
    let changed = false;
    for (const batch of batches) {
      if (batch.state !== 'sent') continue;
      const entry = await this.#ledger.findByKey(account, batchKey(job.id, batch.index));
      const outcome = LedgerOutcomeSchema.safeParse(entry?.outcome);
      const answer = {
        commands: outcome.success ? (outcome.data.commands ?? []) : [],
        unconfirmed: outcome.success ? (outcome.data.unconfirmed ?? []) : [],
      };
      const commandOf = new Map(answer.commands.map((c) => [c.deviceId, c.id]));
      const refs = batch.devices.flatMap((device) => {
        const commandId = device.commandId ?? commandOf.get(device.deviceId);
        return commandId ? [{ deviceId: device.deviceId, commandId }] : [];
      });
      const records = await this.#readModel.commands(account, refs);
      const byDevice = new Map<string, StatusRecord>();
      for (const ref of refs) {
        const record = records.get(`${ref.deviceId} ${ref.commandId}`);
        if (record) byDevice.set(ref.deviceId, record);
      }
      const nowMs = this.#now();
      changed =
        (await this.#store.updateBatchDevices(job.id, batch.index, (devices) =>
          devicesOfBatch(devices, answer, byDevice, nowMs).map((device, i) =>
            keepSettled(devices[i], withSiteBinding(device, unbound.has(device.deviceId), nowMs)),
          ),
        )) || changed;
    }
    return changed;
  }

  async #onChange(change: ReadModelChange): Promise<void> {
    const jobIds = new Set<string>();
    for (const entry of change.ledgerEntries) {
      const match = BATCH_KEY.exec(entry.idempotencyKey ?? '');
      if (match?.[1]) jobIds.add(match[1]);
    }
    const batchIds = change.records.flatMap((record) =>
      record.batchCommandId ? [record.batchCommandId] : [],
    );
    for (const jobId of await this.#store.jobIdsOfBatches(change.account, batchIds))
      jobIds.add(jobId);
    for (const jobId of jobIds) {
      try {
        const job = await this.#store.find(jobId);
        if (!job || !sameAccount(job, change.account)) continue;
        if (!(await this.sync(job, await this.#store.batches(jobId)))) continue;
        await this.#events?.publish(change.account, {
          type: 'fleetJobChanged',
          data: { jobId },
        });
        await this.#tellFailures(job);
      } catch (error) {
        this.#log.warn({ err: error, jobId }, 'fleet job outcomes not brought up to date');
      }
    }
  }

  /** Once, through `read_model_notices`. */
  async #tellFailures(job: FleetJobRow): Promise<void> {
    const notifications = this.#notifications;
    if (!notifications) return;
    const latest = await this.#store.find(job.id);
    if (!latest || !isFinalJobState(latest.state)) return;
    const devices = (await this.#store.batches(job.id))
      .filter((batch) => batch.state === 'sent' || batch.state === 'failed')
      .flatMap((batch) => batch.devices);
    if (devices.some((device) => !settled(device))) return;
    const failed = devices.filter(
      (device) =>
        device.failure !== undefined ||
        (device.status === 'cancelled' && device.cancelReason === 'timeWindowOverlap'),
    ).length;
    if (failed === 0) return;
    const account: Account = { region: job.region, clientId: job.clientId };
    await this.#readModel.store.db.transaction(async (tx) => {
      const nowMs = this.#now();
      if (!(await this.#readModel.store.noticeOnce(tx, `fleet-job:${job.id}:failed`, nowMs)))
        return;
      await notifications.notify(
        {
          account,
          kind: 'fleetJobDevicesFailed',
          jobId: job.id,
          failedDevices: failed,
          totalDevices: devices.length,
          madeBy: personOf({ operator: job.operator, operatorName: job.operatorName }),
        },
        { tx },
      );
    });
  }
}

function ended(device: FleetDeviceOutcome): boolean {
  return (
    device.failure !== undefined || (device.status !== undefined && isFinalStatus(device.status))
  );
}

/** Final until the site is bound again. */
function settled(device: FleetDeviceOutcome): boolean {
  return ended(device) || device.unbound === true;
}

function keepSettled(
  before: FleetDeviceOutcome | undefined,
  after: FleetDeviceOutcome,
): FleetDeviceOutcome {
  return before && ended(before) ? before : after;
}
