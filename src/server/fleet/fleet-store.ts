import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { DeviceCommandSchema, type DeviceCommand } from '#domain/command.ts';
import {
  FleetBatchStateSchema,
  FleetDeviceOutcomeSchema,
  FleetJobStateSchema,
  FleetRolloutSchema,
  expectedSendingEndMs,
  progressOf,
  type FleetBatch,
  type FleetBatchState,
  type FleetDeviceOutcome,
  type FleetJob,
  type FleetJobState,
  type FleetRollout,
} from '#domain/fleet-job.ts';
import type { DeviceCallBudget } from '#domain/device-budget.ts';
import { RoleSchema } from '#domain/roles.ts';
import { OperatorSchema } from '#domain/session.ts';
import { RegionSchema } from '#domain/token.ts';
import { sameAccount, type AccountActor } from '#domain/account.ts';
import type { Database } from '#infra/database.ts';
import { fleetJobBatches, fleetJobs } from '../db/schema.ts';
import { ofAccount } from '../db/account-rows.ts';
import { writeKeyRecord } from '../db/idempotency-records.ts';
import { webhookLinks } from '../webhooks/webhook-links.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';

export type FleetOwner = AccountActor;

/** With the role they had when they made the job. */
export const FleetJobOperatorSchema = OperatorSchema.extend({ role: RoleSchema });
export type FleetJobOperator = z.infer<typeof FleetJobOperatorSchema>;

export interface FleetJobRow extends FleetOwner {
  id: string;
  secretCiphertext: string | null;
  command: DeviceCommand;
  rollout: FleetRollout;
  state: FleetJobState;
  stopReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface FleetBatchRow {
  jobId: string;
  index: number;
  state: FleetBatchState;
  /** Undefined: the job's. */
  command?: DeviceCommand | undefined;
  devices: FleetDeviceOutcome[];
  batchCommandId: string | null;
  attempts: number;
  sentAt: Date | null;
}

const DevicesColumnSchema = z.array(FleetDeviceOutcomeSchema);

/**
 * The fleet job tables (docs/fleet-dispatch.md). A state change names the states it may leave, so
 * two instances racing on one job change it once.
 */
export class FleetStore {
  readonly #db: Database;
  readonly #webhooks: WebhookOutbox | undefined;

  /** @param webhooks told of each batch sent or failed and of each job's end, in the same transaction. */
  constructor(db: Database, webhooks?: WebhookOutbox) {
    this.#db = db;
    this.#webhooks = webhooks;
  }

  /** In one transaction. */
  async create(job: {
    id: string;
    owner: FleetOwner;
    secretCiphertext: string;
    command: DeviceCommand;
    rollout: FleetRollout;
    batches: { deviceIds: string[]; command?: DeviceCommand | undefined }[];
    idempotencyKey?: string | undefined;
    requestHash?: string | undefined;
    nowMs: number;
  }): Promise<void> {
    const now = new Date(job.nowMs);
    await this.#db.transaction(async (tx) => {
      await tx.insert(fleetJobs).values({
        id: job.id,
        region: job.owner.region,
        clientId: job.owner.clientId,
        operatorName: job.owner.operatorName ?? null,
        operator: job.owner.operator ?? null,
        secretCiphertext: job.secretCiphertext,
        command: job.command,
        rollout: job.rollout,
        state: 'running',
        idempotencyKey: job.idempotencyKey ?? null,
        requestHash: job.requestHash ?? null,
        createdAt: now,
        updatedAt: now,
      });
      if (job.idempotencyKey)
        await writeKeyRecord(tx as unknown as Database, {
          owner: job.owner,
          idempotencyKey: job.idempotencyKey,
          holder: 'fleetJob',
          holderId: job.id,
          requestHash: job.requestHash ?? null,
          nowMs: job.nowMs,
        });
      // PostgreSQL takes at most 65,535 parameters per statement.
      for (let i = 0; i < job.batches.length; i += 500)
        await tx.insert(fleetJobBatches).values(
          job.batches.slice(i, i + 500).map((batch, offset) => ({
            jobId: job.id,
            batchIndex: i + offset,
            state: 'pending',
            command: batch.command ?? null,
            devices: batch.deviceIds.map((deviceId) => ({ deviceId })),
          })),
        );
    });
  }

  async find(id: string): Promise<FleetJobRow | undefined> {
    const [row] = await this.#db.select().from(fleetJobs).where(eq(fleetJobs.id, id));
    return row ? jobRowOf(row) : undefined;
  }

  async findOwned(owner: FleetOwner, id: string): Promise<FleetJobRow | undefined> {
    const job = await this.find(id);
    return job && sameAccount(job, owner) ? job : undefined;
  }

  /** One repeatable-read transaction: a job ending between two reads would show pending batches. */
  async snapshot(
    owner: FleetOwner,
    id: string,
  ): Promise<{ job: FleetJobRow; batches: FleetBatchRow[] } | undefined> {
    return this.#db.transaction(
      async (tx) => {
        const [row] = await tx.select().from(fleetJobs).where(eq(fleetJobs.id, id));
        const job = row ? jobRowOf(row) : undefined;
        if (!job || !sameAccount(job, owner)) return undefined;
        const batches = await tx
          .select()
          .from(fleetJobBatches)
          .where(eq(fleetJobBatches.jobId, id))
          .orderBy(asc(fleetJobBatches.batchIndex));
        return { job, batches: batches.map(batchRowOf) };
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
  }

  async list(owner: FleetOwner, limit = 50): Promise<FleetJobRow[]> {
    const rows = await this.#db
      .select()
      .from(fleetJobs)
      .where(ofAccount(fleetJobs, owner))
      .orderBy(desc(fleetJobs.createdAt))
      .limit(limit);
    return rows.map(jobRowOf);
  }

  async batches(jobId: string): Promise<FleetBatchRow[]> {
    const rows = await this.#db
      .select()
      .from(fleetJobBatches)
      .where(eq(fleetJobBatches.jobId, jobId))
      .orderBy(asc(fleetJobBatches.batchIndex));
    return rows.map(batchRowOf);
  }

  async nextToSend(jobId: string): Promise<{ batch?: FleetBatchRow; lastSentMs: number }> {
    // One statement: each round trip counts (bench: fleet). float8 reads as a number in both drivers.
    const lastSentMs = sql<
      number | null
    >`(select (extract(epoch from max(${fleetJobBatches.sentAt})) * 1000)::float8 from ${fleetJobBatches} where ${fleetJobBatches.jobId} = ${jobId})`;
    const [row] = await this.#db
      .select({ batch: fleetJobBatches, lastSentMs })
      .from(fleetJobBatches)
      .where(and(eq(fleetJobBatches.jobId, jobId), eq(fleetJobBatches.state, 'pending')))
      .orderBy(asc(fleetJobBatches.batchIndex))
      .limit(1);
    return row
      ? { batch: batchRowOf(row.batch), lastSentMs: Number(row.lastSentMs ?? 0) }
      : { lastSentMs: 0 };
  }

  /**
   * A final `to` drops the sealed secret and skips the pending batches.
   *
   * @returns whether this call moved it.
   */
  async transition(
    id: string,
    from: readonly FleetJobState[],
    to: FleetJobState,
    nowMs: number,
    stopReason?: string,
  ): Promise<boolean> {
    const final = to === 'completed' || to === 'cancelled' || to === 'aborted' || to === 'failed';
    return this.#db.transaction(async (tx) => {
      const moved = await tx
        .update(fleetJobs)
        .set({
          state: to,
          updatedAt: new Date(nowMs),
          ...(stopReason === undefined ? {} : { stopReason }),
          ...(final ? { secretCiphertext: null } : {}),
        })
        .where(and(eq(fleetJobs.id, id), inArray(fleetJobs.state, [...from])))
        .returning({ id: fleetJobs.id, region: fleetJobs.region, clientId: fleetJobs.clientId });
      const [job] = moved;
      if (!job) return false;
      if (final)
        await this.#webhooks?.record(
          { region: RegionSchema.parse(job.region), clientId: job.clientId },
          {
            type: 'fleetJob.ended',
            data: {
              jobId: id,
              state: to,
              ...(stopReason ? { reason: stopReason } : {}),
              links: { fleetJob: webhookLinks.fleetJob(id) },
            },
          },
          { tx },
        );
      if (final)
        await tx
          .update(fleetJobBatches)
          .set({ state: 'skipped' })
          .where(and(eq(fleetJobBatches.jobId, id), eq(fleetJobBatches.state, 'pending')));
      return true;
    });
  }

  /** Leaves the batch's other devices as they are now. */
  async updateDeviceStatus(
    jobId: string,
    index: number,
    deviceId: string,
    read: Pick<
      FleetDeviceOutcome,
      'status' | 'cancelReason' | 'outcomeAt' | 'commandId' | 'failure'
    >,
  ): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const [row] = await tx
        .select({ devices: fleetJobBatches.devices })
        .from(fleetJobBatches)
        .where(and(eq(fleetJobBatches.jobId, jobId), eq(fleetJobBatches.batchIndex, index)))
        .for('update');
      if (!row) return;
      const devices = DevicesColumnSchema.parse(row.devices).map((device) =>
        device.deviceId === deviceId ? { ...device, ...read } : device,
      );
      await tx
        .update(fleetJobBatches)
        .set({ devices })
        .where(and(eq(fleetJobBatches.jobId, jobId), eq(fleetJobBatches.batchIndex, index)));
    });
  }

  /** Row locked, so outcomes from the read model never undo what a step wrote since. */
  async updateBatchDevices(
    jobId: string,
    index: number,
    update: (devices: FleetDeviceOutcome[]) => FleetDeviceOutcome[],
  ): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const [row] = await tx
        .select({ devices: fleetJobBatches.devices })
        .from(fleetJobBatches)
        .where(and(eq(fleetJobBatches.jobId, jobId), eq(fleetJobBatches.batchIndex, index)))
        .for('update');
      if (!row) return false;
      const before = DevicesColumnSchema.parse(row.devices);
      const devices = update(before);
      if (JSON.stringify(devices) === JSON.stringify(before)) return false;
      await tx
        .update(fleetJobBatches)
        .set({ devices })
        .where(and(eq(fleetJobBatches.jobId, jobId), eq(fleetJobBatches.batchIndex, index)));
      return true;
    });
  }

  async jobIdsOfBatches(
    owner: Pick<FleetOwner, 'region' | 'clientId'>,
    batchCommandIds: readonly string[],
  ): Promise<string[]> {
    if (batchCommandIds.length === 0) return [];
    const rows = await this.#db
      .selectDistinct({ jobId: fleetJobBatches.jobId })
      .from(fleetJobBatches)
      .innerJoin(fleetJobs, eq(fleetJobs.id, fleetJobBatches.jobId))
      .where(
        and(
          ofAccount(fleetJobs, owner),
          inArray(fleetJobBatches.batchCommandId, [...new Set(batchCommandIds)]),
        ),
      );
    return rows.map((row) => row.jobId);
  }

  async updateBatch(
    batch: Pick<FleetBatchRow, 'jobId' | 'index'> & Partial<Omit<FleetBatchRow, 'jobId' | 'index'>>,
  ): Promise<void> {
    const { jobId, index, ...changes } = batch;
    const state = changes.state;
    if (this.#webhooks && (state === 'sent' || state === 'failed')) {
      const webhooks = this.#webhooks;
      await this.#db.transaction(async (txn) => {
        const tx = txn as unknown as Database;
        await this.#writeBatch(tx, jobId, index, changes);
        const [job] = await tx
          .select({ region: fleetJobs.region, clientId: fleetJobs.clientId })
          .from(fleetJobs)
          .where(eq(fleetJobs.id, jobId));
        if (!job) return;
        await webhooks.record(
          { region: RegionSchema.parse(job.region), clientId: job.clientId },
          {
            type: 'fleetJob.progressed',
            data: {
              jobId,
              batchIndex: index,
              ...(changes.batchCommandId ? { batchCommandId: changes.batchCommandId } : {}),
              state: state === 'sent' ? 'batchSent' : 'batchFailed',
              links: { fleetJob: webhookLinks.fleetJob(jobId) },
            },
          },
          { tx },
        );
      });
      return;
    }
    await this.#writeBatch(this.#db, jobId, index, changes);
  }

  async #writeBatch(
    db: Database,
    jobId: string,
    index: number,
    changes: Partial<Omit<FleetBatchRow, 'jobId' | 'index'>>,
  ): Promise<void> {
    await db
      .update(fleetJobBatches)
      .set({
        ...(changes.state ? { state: changes.state } : {}),
        ...(changes.devices ? { devices: changes.devices } : {}),
        ...(changes.batchCommandId === undefined ? {} : { batchCommandId: changes.batchCommandId }),
        ...(changes.attempts === undefined ? {} : { attempts: changes.attempts }),
        ...(changes.sentAt === undefined ? {} : { sentAt: changes.sentAt }),
      })
      .where(and(eq(fleetJobBatches.jobId, jobId), eq(fleetJobBatches.batchIndex, index)));
  }
}

/** `expectedSendingEndMs` at `sending.nowMs`, under the devices' budget. */
export function toFleetJob(
  job: FleetJobRow,
  batches: readonly FleetBatchRow[],
  sending?: { nowMs: number; budget: DeviceCallBudget },
): FleetJob {
  const answered: FleetBatch[] = batches.map((batch) => ({
    index: batch.index,
    state: batch.state,
    ...(batch.command ? { command: batch.command } : {}),
    ...(batch.batchCommandId ? { batchCommandId: batch.batchCommandId } : {}),
    ...(batch.sentAt ? { sentAt: batch.sentAt.toISOString() } : {}),
    attempts: batch.attempts,
    devices: batch.devices,
  }));
  const sendingEndMs = sending
    ? expectedSendingEndMs(
        { state: job.state, rollout: job.rollout, batches: answered },
        sending.nowMs,
        sending.budget,
      )
    : undefined;
  return {
    jobId: job.id,
    state: job.state,
    command: job.command,
    rollout: job.rollout,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
    ...(job.operatorName ? { operatorName: job.operatorName } : {}),
    ...(job.stopReason ? { stopReason: job.stopReason } : {}),
    progress: progressOf(answered),
    ...(sendingEndMs === undefined ? {} : { sendingEndsAt: new Date(sendingEndMs).toISOString() }),
    batches: answered,
  };
}

function jobRowOf(row: typeof fleetJobs.$inferSelect): FleetJobRow {
  return {
    id: row.id,
    region: RegionSchema.parse(row.region),
    clientId: row.clientId,
    ...(row.operatorName ? { operatorName: row.operatorName } : {}),
    ...(row.operator === null ? {} : { operator: FleetJobOperatorSchema.parse(row.operator) }),
    secretCiphertext: row.secretCiphertext,
    command: DeviceCommandSchema.parse(row.command),
    rollout: FleetRolloutSchema.parse(row.rollout),
    state: FleetJobStateSchema.parse(row.state),
    stopReason: row.stopReason,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function batchRowOf(row: typeof fleetJobBatches.$inferSelect): FleetBatchRow {
  return {
    jobId: row.jobId,
    index: row.batchIndex,
    state: FleetBatchStateSchema.parse(row.state),
    ...(row.command === null ? {} : { command: DeviceCommandSchema.parse(row.command) }),
    devices: DevicesColumnSchema.parse(row.devices),
    batchCommandId: row.batchCommandId,
    attempts: row.attempts,
    sentAt: row.sentAt,
  };
}
