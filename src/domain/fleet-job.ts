import { z } from 'zod';
import { MAX_BATCH_DEVICES } from './batch.ts';
import {
  CancellationReasonSchema,
  CommandStatusSchema,
  DeviceCommandSchema,
  isFinalStatus,
  type CancellationReason,
  type StatusRecord,
} from './command.ts';
import { planCalls, type DeviceCallBudget, type DeviceCalls } from './device-budget.ts';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema, SiteIdSchema } from './ids.ts';
import { UtcTimestampSchema } from './time.ts';

/**
 * Which devices a fleet job addresses (docs/fleet-dispatch.md, Selection): every device of the
 * listed sites, every device of the listed models, and the listed devices, joined (a device
 * named twice counts once). Only the operator's bound sites are searched; at least one of the
 * three must name something.
 */
export const FleetSelectionSchema = z
  .strictObject({
    siteIds: z.array(SiteIdSchema).max(1000).default([]),
    models: z.array(z.string().min(1).max(128)).max(100).default([]),
    deviceIds: z.array(DeviceIdSchema).max(20_000).default([]),
  })
  .refine((s) => s.siteIds.length + s.models.length + s.deviceIds.length > 0, {
    error: 'name at least one site, model or device',
  });
export type FleetSelection = z.infer<typeof FleetSelectionSchema>;

/**
 * The rollout a fleet job or a dispatch plan starts with (docs/fleet-dispatch.md, Rollout): full
 * batches, 10 a minute (a failing command shows before most of a large fleet got it), stopped once
 * more than 10% of the devices sent so far failed or were cancelled. The forms start here and the
 * API fills a field left out from here, so a rollout nobody chose protects the fleet.
 */
export const DEFAULT_FLEET_ROLLOUT = {
  batchSize: MAX_BATCH_DEVICES,
  batchesPerMinute: 10,
  abortPercent: 10,
} as const;

/**
 * How a fleet job is rolled out: batches of `batchSize` devices (at most 50, docs/upstream.md,
 * Batches), sent at most `batchesPerMinute`, and stopped once more than `abortPercent` percent of
 * the devices sent so far failed or were cancelled (100 never stops). Defaults:
 * {@link DEFAULT_FLEET_ROLLOUT}.
 */
export const FleetRolloutSchema = z.strictObject({
  batchSize: z.int().min(1).max(MAX_BATCH_DEVICES).default(DEFAULT_FLEET_ROLLOUT.batchSize),
  batchesPerMinute: z.number().min(0.1).max(600).default(DEFAULT_FLEET_ROLLOUT.batchesPerMinute),
  abortPercent: z.number().min(0).max(100).default(DEFAULT_FLEET_ROLLOUT.abortPercent),
});
export type FleetRollout = z.infer<typeof FleetRolloutSchema>;

/** Body of `POST /api/fleet-jobs`: the devices, the one device command for all, the rollout. */
export const FleetJobRequestSchema = z.strictObject({
  selection: FleetSelectionSchema,
  command: DeviceCommandSchema,
  rollout: FleetRolloutSchema.default(DEFAULT_FLEET_ROLLOUT),
});
export type FleetJobRequest = z.infer<typeof FleetJobRequestSchema>;

/**
 * Where a fleet job stands: `running` sends its batches; `paused` sends nothing until resumed;
 * `cancelling` cancels what it sent; `completed` sent every batch; `cancelled` by the operator;
 * `aborted` by its abort rule; `failed` when it could not go on (the sign-in it ran under ended).
 */
export const FLEET_JOB_STATES = [
  'running',
  'paused',
  'cancelling',
  'completed',
  'cancelled',
  'aborted',
  'failed',
] as const;
export const FleetJobStateSchema = z.enum(FLEET_JOB_STATES);
export type FleetJobState = z.infer<typeof FleetJobStateSchema>;

/** True once a job sends and cancels nothing more. */
export function isFinalJobState(state: FleetJobState): boolean {
  return (
    state === 'completed' || state === 'cancelled' || state === 'aborted' || state === 'failed'
  );
}

/**
 * Where one batch of a job stands: `pending` not yet sent (or to be tried again), `sent` accepted
 * upstream, `failed` refused or never confirmed, `skipped` not sent because the job stopped.
 */
export const FLEET_BATCH_STATES = ['pending', 'sent', 'failed', 'skipped'] as const;
export const FleetBatchStateSchema = z.enum(FLEET_BATCH_STATES);
export type FleetBatchState = z.infer<typeof FleetBatchStateSchema>;

/** One device of a batch: its command once sent, the last status read, why it failed. */
export const FleetDeviceOutcomeSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema.optional(),
  status: CommandStatusSchema.optional(),
  cancelReason: CancellationReasonSchema.optional(),
  /** Operator words for why this device got no command. */
  failure: z.string().optional(),
  /**
   * True once its site was unbound before its command ended: "Site unbound: no longer followed",
   * a final state of its own (not a failure: the abort rule does not count it). `status` is then
   * the last one read, and `outcomeAt` when the BFF learnt of the unbind. docs/fleet-dispatch.md,
   * Progress.
   */
  unbound: z.literal(true).optional(),
  /**
   * When the device's outcome became final, UTC: its command completed or was cancelled (the
   * upstream's `completedAt` or `cancelledAt`, else when the BFF learnt it), or it failed (when
   * the BFF gave up on it). Absent while live, and on jobs recorded before it was kept.
   */
  outcomeAt: UtcTimestampSchema.optional(),
});
export type FleetDeviceOutcome = z.infer<typeof FleetDeviceOutcomeSchema>;

/**
 * What a status record tells of a job's device: its status, the cancellation reason, and, once
 * final, when (`completedAt` or `cancelledAt`; `nowMs` when the record does not say).
 */
export function deviceOutcomeOfRecord(
  record: Pick<StatusRecord, 'status' | 'cancelReason' | 'completedAt' | 'cancelledAt'>,
  nowMs: number,
): Pick<FleetDeviceOutcome, 'status' | 'cancelReason' | 'outcomeAt'> {
  const finalAt = record.status === 'completed' ? record.completedAt : record.cancelledAt;
  return {
    status: record.status,
    ...(record.cancelReason ? { cancelReason: record.cancelReason } : {}),
    ...(isFinalStatus(record.status)
      ? { outcomeAt: finalAt ?? new Date(nowMs).toISOString() }
      : {}),
  };
}

/**
 * A job's device as its site's binding makes it (docs/fleet-dispatch.md, Progress): once the site
 * is unbound (`siteUnbound`), powerdeck reads the device no more, so a device whose command is not
 * final ends as no longer followed (`unbound`, `outcomeAt` `nowMs` the first time); an outcome
 * reached before (a final command, a failure) stands. Bound again, a device no longer followed is
 * followed again (live, without `unbound` and `outcomeAt`).
 */
export function withSiteBinding(
  device: FleetDeviceOutcome,
  siteUnbound: boolean,
  nowMs: number,
): FleetDeviceOutcome {
  const { unbound, ...followed } = device;
  const ended =
    device.failure !== undefined || (device.status !== undefined && isFinalStatus(device.status));
  if (ended) return followed;
  if (siteUnbound)
    return {
      ...followed,
      unbound: true,
      outcomeAt: unbound && device.outcomeAt ? device.outcomeAt : new Date(nowMs).toISOString(),
    };
  if (unbound) delete followed.outcomeAt;
  return followed;
}

/** One batch of a job as `GET /api/fleet-jobs/{jobId}` answers it. */
export const FleetBatchSchema = z.object({
  index: z.int().min(0),
  state: FleetBatchStateSchema,
  /** This batch's own device command (a dispatch plan's); absent: the job's `command`. */
  command: DeviceCommandSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  sentAt: UtcTimestampSchema.optional(),
  attempts: z.int().min(0),
  devices: z.array(FleetDeviceOutcomeSchema),
});
export type FleetBatch = z.infer<typeof FleetBatchSchema>;

/** Counts of a job's devices by where they stand (the job page's progress). */
export const FleetProgressSchema = z.object({
  total: z.int(),
  sent: z.int(),
  received: z.int(),
  executing: z.int(),
  completed: z.int(),
  cancelled: z.partialRecord(CancellationReasonSchema, z.int()),
  /** Devices whose site was unbound before their command ended: no longer followed, final. */
  unbound: z.int(),
  failed: z.int(),
});
export type FleetProgress = z.infer<typeof FleetProgressSchema>;

/** A fleet job as the BFF answers it (`GET /api/fleet-jobs/{jobId}`). */
export const FleetJobSchema = z.object({
  jobId: z.uuid(),
  state: FleetJobStateSchema,
  command: DeviceCommandSchema,
  rollout: FleetRolloutSchema,
  createdAt: UtcTimestampSchema,
  updatedAt: UtcTimestampSchema,
  operatorName: z.string().optional(),
  /** Operator words for why the job stopped short (abort rule, ended sign-in). */
  stopReason: z.string().optional(),
  progress: FleetProgressSchema,
  /**
   * When the last batch still to send is expected to go ({@link expectedSendingEndMs}); absent
   * when none is pending or the job is not running.
   */
  sendingEndsAt: UtcTimestampSchema.optional(),
  batches: z.array(FleetBatchSchema),
});
export type FleetJob = z.infer<typeof FleetJobSchema>;

/**
 * When a running job's last pending batch is expected to go, epoch ms: the batches go in order,
 * one interval of the rollout's rate apart, after the last one sent (docs/fleet-dispatch.md, Job
 * model), and each no sooner than its devices' budget of upstream calls lets all of them take
 * another (docs/decisions/007-device-call-budget.md, section 1): a device in several batches (a
 * dispatch plan's rows on one device) takes at most `budget.limit` of them in any
 * `budget.windowMs`. The calls others make on the devices are not known here, so this is the
 * earliest the job can finish sending, not a promise.
 *
 * @param nowMs the clock now, epoch ms; the batches' `sentAt` are on the same clock.
 * @returns undefined when the job is not running or no batch is pending.
 */
export function expectedSendingEndMs(
  job: {
    state: FleetJobState;
    rollout: Pick<FleetRollout, 'batchesPerMinute'>;
    batches: readonly {
      state: FleetBatchState;
      sentAt?: string | undefined;
      devices: readonly { deviceId: string }[];
    }[];
  },
  nowMs: number,
  budget: DeviceCallBudget,
): number | undefined {
  if (job.state !== 'running') return undefined;
  const pending = job.batches.filter((batch) => batch.state === 'pending');
  if (pending.length === 0) return undefined;
  const intervalMs = 60_000 / job.rollout.batchesPerMinute;
  // The devices' calls this job made within the last window count against its next batches.
  const calls = new Map<string, DeviceCalls>();
  const spend = (deviceIds: readonly string[], atMs: number) => {
    for (const deviceId of deviceIds) {
      const spentAtMs = [...(calls.get(deviceId)?.spentAtMs ?? []), atMs];
      calls.set(deviceId, { spentAtMs });
    }
  };
  let lastSentMs: number | undefined;
  for (const batch of job.batches) {
    if (!batch.sentAt) continue;
    const sentMs = Date.parse(batch.sentAt);
    lastSentMs = Math.max(lastSentMs ?? sentMs, sentMs);
    if (sentMs > nowMs - budget.windowMs)
      spend(
        batch.devices.map((d) => d.deviceId),
        sentMs,
      );
  }
  let atMs = lastSentMs === undefined ? nowMs : Math.max(nowMs, lastSentMs + intervalMs);
  for (const [i, batch] of pending.entries()) {
    const deviceIds = batch.devices.map((d) => d.deviceId);
    if (deviceIds.length === 0) continue;
    const fromMs = i === 0 ? atMs : atMs + intervalMs;
    [atMs = fromMs] = planCalls(calls, [deviceIds], budget, fromMs);
    spend(deviceIds, atMs);
  }
  return atMs;
}

/** Body of `GET /api/fleet-jobs`: the client's jobs, newest first, without their batches. */
export const FleetJobListSchema = z.object({ jobs: z.array(FleetJobSchema) });
export type FleetJobList = z.infer<typeof FleetJobListSchema>;

/** Most rows a dispatch plan may hold. */
export const MAX_PLAN_ROWS = 20_000;

/**
 * Body of `POST /api/fleet-plans` (docs/fleet-dispatch.md, Dispatch plans): the rows of a plan
 * the operator kept after its check, each a device and its own device command, and the rollout
 * (its `batchSize` caps the batches the rows are grouped into).
 */
export const FleetPlanRequestSchema = z.strictObject({
  rows: z
    .array(
      z.strictObject({
        line: z.int().min(1),
        deviceId: DeviceIdSchema,
        command: DeviceCommandSchema,
      }),
    )
    .min(1, { error: 'a plan needs at least one row' })
    .max(MAX_PLAN_ROWS, { error: `a plan may hold at most ${MAX_PLAN_ROWS} rows` }),
  rollout: FleetRolloutSchema.default(DEFAULT_FLEET_ROLLOUT),
});
export type FleetPlanRequest = z.infer<typeof FleetPlanRequestSchema>;

/** Body of `POST /api/fleet-plans/check`: the rows to check, nothing made or sent. */
export const FleetPlanCheckRequestSchema = FleetPlanRequestSchema.pick({ rows: true });

/**
 * Answer of `POST /api/fleet-plans/check` (docs/fleet-dispatch.md, Dispatch plans): the rows that
 * can be sent, each with its command in UTC, and the rows refused, each with every reason in
 * operator words; both in line order.
 */
export const FleetPlanCheckSchema = z.object({
  accepted: z.array(
    z.object({ line: z.int().min(1), deviceId: DeviceIdSchema, command: DeviceCommandSchema }),
  ),
  refused: z.array(
    z.object({ line: z.int().min(1), deviceId: z.string(), reasons: z.array(z.string()) }),
  ),
});
export type FleetPlanCheck = z.infer<typeof FleetPlanCheckSchema>;

/** Body of `POST /api/fleet-jobs/{jobId}/{pause|resume|cancel}`: none. */
export const FLEET_JOB_ACTIONS = ['pause', 'resume', 'cancel'] as const;
export const FleetJobActionSchema = z.enum(FLEET_JOB_ACTIONS);
export type FleetJobAction = z.infer<typeof FleetJobActionSchema>;

/**
 * Splits `deviceIds` into batches of at most `batchSize` (docs/upstream.md, Batches: at most 50
 * per batch), in order.
 *
 * @throws RangeError when `batchSize` is not 1 to 50.
 */
export function splitIntoBatches(deviceIds: readonly string[], batchSize: number): string[][] {
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_DEVICES)
    throw new RangeError(`batch size must be 1 to ${MAX_BATCH_DEVICES}`);
  const batches: string[][] = [];
  for (let i = 0; i < deviceIds.length; i += batchSize)
    batches.push(deviceIds.slice(i, i + batchSize));
  return batches;
}

/**
 * The abort rule (docs/fleet-dispatch.md, Abort rule): true when more than `abortPercent` percent
 * of the devices sent so far failed or were cancelled. `sentSoFar` counts every device of every
 * batch tried, failed ones included. Never true at 100 or before anything was tried.
 */
export function breaksAbortRule(
  counts: { sentSoFar: number; failedOrCancelled: number },
  abortPercent: number,
): boolean {
  if (abortPercent >= 100 || counts.sentSoFar === 0) return false;
  return (counts.failedOrCancelled / counts.sentSoFar) * 100 > abortPercent;
}

/**
 * What the abort rule counts of a job's batches tried so far (sent or failed): every device of
 * them, and those that failed or whose command was cancelled. A device whose site was unbound
 * since is tried, never failed: it is not a failure of the command (docs/fleet-dispatch.md, Abort
 * rule).
 */
export function abortRuleCounts(batches: readonly Pick<FleetBatch, 'state' | 'devices'>[]): {
  sentSoFar: number;
  failedOrCancelled: number;
} {
  let sentSoFar = 0;
  let failedOrCancelled = 0;
  for (const batch of batches) {
    if (batch.state !== 'sent' && batch.state !== 'failed') continue;
    for (const device of batch.devices) {
      sentSoFar += 1;
      if (device.failure || device.status === 'cancelled') failedOrCancelled += 1;
    }
  }
  return { sentSoFar, failedOrCancelled };
}

/**
 * Counts devices by where they stand, for the job's progress; a device whose site was unbound
 * since counts as `unbound` (final), whatever status it was last read at.
 */
export function progressOf(batches: readonly Pick<FleetBatch, 'devices'>[]): FleetProgress {
  const progress: FleetProgress = {
    total: 0,
    sent: 0,
    received: 0,
    executing: 0,
    completed: 0,
    cancelled: {},
    unbound: 0,
    failed: 0,
  };
  for (const batch of batches)
    for (const device of batch.devices) {
      progress.total += 1;
      if (device.failure) progress.failed += 1;
      if (device.unbound) progress.unbound += 1;
      if (!device.commandId) continue;
      progress.sent += 1;
      if (device.unbound) continue;
      if (device.status === 'received') progress.received += 1;
      else if (device.status === 'executing') progress.executing += 1;
      else if (device.status === 'completed') progress.completed += 1;
      else if (device.status === 'cancelled') {
        const reason: CancellationReason = device.cancelReason ?? 'manuallyCancel';
        progress.cancelled[reason] = (progress.cancelled[reason] ?? 0) + 1;
      }
    }
  return progress;
}

/** A job's devices by outcome at one instant, counted from the start (the progress chart). */
export interface FleetProgressSample {
  /** Epoch ms. */
  atMs: number;
  sent: number;
  completed: number;
  cancelled: number;
  failed: number;
}

/**
 * The job's progress over time, derived from what its batches hold: a device counts as sent at
 * its batch's `sentAt`, and as completed, cancelled or failed at its `outcomeAt` (at the job's
 * `updatedAt` where that is missing: a job recorded before outcome times were kept). One sample
 * at the job's creation with every count 0, then one per distinct instant something changed, in
 * time order, each count cumulative; a job still going ends with a sample at `nowMs` (never
 * before the last change), so the lines reach the present.
 */
export function progressOverTime(
  job: Pick<FleetJob, 'createdAt' | 'updatedAt' | 'state' | 'batches'>,
  nowMs: number,
): FleetProgressSample[] {
  type Key = Exclude<keyof FleetProgressSample, 'atMs'>;
  const createdMs = Date.parse(job.createdAt);
  const updatedMs = Date.parse(job.updatedAt);
  const events: { atMs: number; key: Key }[] = [];
  for (const batch of job.batches) {
    const sentMs = batch.sentAt ? Date.parse(batch.sentAt) : undefined;
    for (const device of batch.devices) {
      const outcomeMs = device.outcomeAt ? Date.parse(device.outcomeAt) : updatedMs;
      if (device.commandId && sentMs !== undefined) events.push({ atMs: sentMs, key: 'sent' });
      if (device.failure) events.push({ atMs: outcomeMs, key: 'failed' });
      else if (device.status === 'completed') events.push({ atMs: outcomeMs, key: 'completed' });
      else if (device.status === 'cancelled') events.push({ atMs: outcomeMs, key: 'cancelled' });
    }
  }
  events.sort((a, b) => a.atMs - b.atMs);
  const samples: FleetProgressSample[] = [
    { atMs: createdMs, sent: 0, completed: 0, cancelled: 0, failed: 0 },
  ];
  for (const event of events) {
    const last = samples[samples.length - 1] ?? samples[0];
    if (!last) break;
    const atMs = Math.max(event.atMs, createdMs);
    const sample = last.atMs === atMs ? last : { ...last, atMs };
    sample[event.key] += 1;
    if (sample !== last) samples.push(sample);
  }
  const last = samples[samples.length - 1];
  if (last && !isFinalJobState(job.state) && nowMs > last.atMs)
    samples.push({ ...last, atMs: nowMs });
  return samples;
}
