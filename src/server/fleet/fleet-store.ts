import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { DeviceCommandSchema, type DeviceCommand } from '../../domain/command.ts';
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
} from '../../domain/fleet-job.ts';
import type { DeviceCallBudget } from '../../domain/device-budget.ts';
import { RoleSchema } from '../../domain/roles.ts';
import { OperatorSchema } from '../../domain/session.ts';
import { RegionSchema } from '../../domain/token.ts';
import { sameAccount, type AccountActor } from '../../domain/account.ts';
import type { Database } from '../../infra/database.ts';
import { fleetJobBatches, fleetJobs } from '../db/schema.ts';
import { ofAccount } from '../db/account-rows.ts';

/**
 * Who owns a job: the client it acts for and the operator who made it: the typed name
 * (credentials form), or the person and their role at that sign-in (company sign-in).
 */
export type FleetOwner = AccountActor;

/** The person a company sign-in authenticated, with the role they had when they made the job. */
export const FleetJobOperatorSchema = OperatorSchema.extend({ role: RoleSchema });
export type FleetJobOperator = z.infer<typeof FleetJobOperatorSchema>;

/** A job row as read back, its JSON columns parsed. */
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

/** A batch row as read back. */
export interface FleetBatchRow {
  jobId: string;
  index: number;
  state: FleetBatchState;
  /** The batch's own command (a plan's); undefined: the job's. */
  command?: DeviceCommand | undefined;
  devices: FleetDeviceOutcome[];
  batchCommandId: string | null;
  attempts: number;
  sentAt: Date | null;
}

const DevicesColumnSchema = z.array(FleetDeviceOutcomeSchema);

/**
 * The fleet job tables (`bff.fleet_jobs`, `bff.fleet_job_batches`; docs/fleet-dispatch.md). Every
 * read checks what it reads; a state change names the states it may leave, so two instances
 * racing on one job change it once.
 */
export class FleetStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Writes a new job and all its batches, `pending`, in one transaction. */
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
      // Chunked: PostgreSQL takes at most 65,535 parameters per statement.
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

  /** The owner's job, or undefined when there is none or it belongs to another client. */
  async findOwned(owner: FleetOwner, id: string): Promise<FleetJobRow | undefined> {
    const job = await this.find(id);
    return job && sameAccount(job, owner) ? job : undefined;
  }

  /**
   * The owner's job and its batches as of one moment (one repeatable-read transaction): a job
   * that ends between two plain reads would otherwise be answered `aborted` or `cancelled` with
   * batches still `pending`, since its end and the skipping of its batches commit together.
   * Undefined when there is no such job or it belongs to another client.
   */
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

  /** The owner's job made by a request with `idempotencyKey`, and that request's fingerprint. */
  async findByKey(
    owner: FleetOwner,
    idempotencyKey: string,
  ): Promise<{ job: FleetJobRow; requestHash: string | null } | undefined> {
    const [row] = await this.#db
      .select()
      .from(fleetJobs)
      .where(and(ofAccount(fleetJobs, owner), eq(fleetJobs.idempotencyKey, idempotencyKey)));
    return row ? { job: jobRowOf(row), requestHash: row.requestHash } : undefined;
  }

  /** The owner's jobs, newest first, at most `limit`. */
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

  /**
   * The first batch of a job still to be sent, and when the job last sent one (epoch ms, 0 when
   * none): what a step needs, read without the job's other batches.
   */
  async nextToSend(jobId: string): Promise<{ batch?: FleetBatchRow; lastSentMs: number }> {
    // One statement: a step runs once per batch, and each round trip counts (bench: fleet).
    // Epoch ms as float8, which both drivers answer as a number.
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
   * Moves a job from one of `from` to `to`; when `to` is final, the sealed secret is dropped
   * and the batches still pending become `skipped`.
   *
   * @returns whether this call moved it (false: it was in no state of `from`).
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
        .returning({ id: fleetJobs.id });
      if (moved.length === 0) return false;
      if (final)
        await tx
          .update(fleetJobBatches)
          .set({ state: 'skipped' })
          .where(and(eq(fleetJobBatches.jobId, id), eq(fleetJobBatches.state, 'pending')));
      return true;
    });
  }

  /**
   * Writes the status (and cancellation reason) read for one device of a batch, leaving the
   * batch's other devices as they are now, whatever was written since the batch was read.
   */
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

  /**
   * Rewrites a batch's devices with `update` applied to them as they are now (the row locked
   * meanwhile), so outcomes written from the read model never undo what a step wrote since.
   *
   * @returns whether the devices changed.
   */
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

  /** The jobs of `owner` that sent one of these batches (by the vendor's batch ID). */
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

  /** Writes a batch's state, devices and IDs after an attempt. */
  async updateBatch(
    batch: Pick<FleetBatchRow, 'jobId' | 'index'> & Partial<Omit<FleetBatchRow, 'jobId' | 'index'>>,
  ): Promise<void> {
    const { jobId, index, ...changes } = batch;
    await this.#db
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

/**
 * A job with its batches as the BFF answers it; with `sending`, when its last pending batch is
 * expected to go (`expectedSendingEndMs`, at `sending.nowMs` and under the devices' budget).
 */
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
