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

/** The most devices a fleet job's selection names one by one. */
export const MAX_FLEET_DEVICE_IDS = 20_000;

/** Joined, each device once; bound sites only (docs/fleet-dispatch.md, Selection). */
export const FleetSelectionSchema = z
  .strictObject({
    siteIds: z.array(SiteIdSchema).max(1000).default([]),
    models: z.array(z.string().min(1).max(128)).max(100).default([]),
    deviceIds: z.array(DeviceIdSchema).max(MAX_FLEET_DEVICE_IDS).default([]),
  })
  .refine((s) => s.siteIds.length + s.models.length + s.deviceIds.length > 0, {
    error: 'name at least one site, model or device',
  });
export type FleetSelection = z.infer<typeof FleetSelectionSchema>;

/**
 * docs/fleet-dispatch.md, Rollout. The API fills a field left out from here, so a rollout nobody
 * chose protects the fleet.
 */
export const DEFAULT_FLEET_ROLLOUT = {
  batchSize: MAX_BATCH_DEVICES,
  batchesPerMinute: 10,
  abortPercent: 10,
} as const;

/** `batchSize` at most 50 (docs/upstream.md, Batches); `abortPercent` 100 never stops. */
export const FleetRolloutSchema = z.strictObject({
  batchSize: z.int().min(1).max(MAX_BATCH_DEVICES).default(DEFAULT_FLEET_ROLLOUT.batchSize),
  batchesPerMinute: z.number().min(0.1).max(600).default(DEFAULT_FLEET_ROLLOUT.batchesPerMinute),
  abortPercent: z.number().min(0).max(100).default(DEFAULT_FLEET_ROLLOUT.abortPercent),
});
export type FleetRollout = z.infer<typeof FleetRolloutSchema>;

/** Body of `POST /api/fleet-jobs`. */
export const FleetJobRequestSchema = z.strictObject({
  selection: FleetSelectionSchema,
  command: DeviceCommandSchema,
  rollout: FleetRolloutSchema.default(DEFAULT_FLEET_ROLLOUT),
});
export type FleetJobRequest = z.infer<typeof FleetJobRequestSchema>;

/** `failed` when it could not go on (the sign-in it ran under ended). */
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

/** Sends and cancels nothing more. */
export function isFinalJobState(state: FleetJobState): boolean {
  return (
    state === 'completed' || state === 'cancelled' || state === 'aborted' || state === 'failed'
  );
}

export const FLEET_BATCH_STATES = ['pending', 'sent', 'failed', 'skipped'] as const;
export const FleetBatchStateSchema = z.enum(FLEET_BATCH_STATES);
export type FleetBatchState = z.infer<typeof FleetBatchStateSchema>;

export const FleetDeviceOutcomeSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema.optional(),
  status: CommandStatusSchema.optional(),
  cancelReason: CancellationReasonSchema.optional(),
  failure: z.string().optional(),
  /**
   * Its site was unbound before its command ended: final, not a failure (the abort rule does not
   * count it); docs/fleet-dispatch.md, Progress.
   */
  unbound: z.literal(true).optional(),
  /** When the outcome became final, UTC. Absent while live, and on jobs recorded before. */
  outcomeAt: UtcTimestampSchema.optional(),
});
export type FleetDeviceOutcome = z.infer<typeof FleetDeviceOutcomeSchema>;

/** `nowMs` stands for the final time when the record gives none. */
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
 * Once its site is unbound a live device ends as no longer followed; an outcome reached before
 * stands; bound again it is followed again (docs/fleet-dispatch.md, Progress).
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

export const FleetBatchSchema = z.object({
  index: z.int().min(0),
  state: FleetBatchStateSchema,
  /** Absent: the job's `command`. */
  command: DeviceCommandSchema.optional(),
  batchCommandId: BatchCommandIdSchema.optional(),
  sentAt: UtcTimestampSchema.optional(),
  attempts: z.int().min(0),
  devices: z.array(FleetDeviceOutcomeSchema),
});
export type FleetBatch = z.infer<typeof FleetBatchSchema>;

export const FleetProgressSchema = z.object({
  total: z.int(),
  sent: z.int(),
  received: z.int(),
  executing: z.int(),
  completed: z.int(),
  cancelled: z.partialRecord(CancellationReasonSchema, z.int()),
  unbound: z.int(),
  failed: z.int(),
});
export type FleetProgress = z.infer<typeof FleetProgressSchema>;

/** Answer of `GET /api/fleet-jobs/{jobId}`. */
export const FleetJobSchema = z.object({
  jobId: z.uuid(),
  state: FleetJobStateSchema,
  command: DeviceCommandSchema,
  rollout: FleetRolloutSchema,
  createdAt: UtcTimestampSchema,
  updatedAt: UtcTimestampSchema,
  operatorName: z.string().optional(),
  stopReason: z.string().optional(),
  progress: FleetProgressSchema,
  /** Absent when none is pending or the job is not running. */
  sendingEndsAt: UtcTimestampSchema.optional(),
  batches: z.array(FleetBatchSchema),
});
export type FleetJob = z.infer<typeof FleetJobSchema>;

/**
 * Epoch ms, on `nowMs`'s clock: batches go one rollout interval apart (docs/fleet-dispatch.md, Job
 * model), each when its devices' budget lets all take another call
 * (docs/decisions/007-device-call-budget.md, section 1). Others' calls are unknown, so this is
 * the earliest, not a promise. Undefined when not running or nothing is pending.
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

/** Body of `GET /api/fleet-jobs`: newest first, without batches. */
export const FleetJobListSchema = z.object({ jobs: z.array(FleetJobSchema) });
export type FleetJobList = z.infer<typeof FleetJobListSchema>;

export const MAX_PLAN_ROWS = 20_000;

/** docs/fleet-dispatch.md, Dispatch plans; the rollout's `batchSize` caps the batches. */
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

/** Body of `POST /api/fleet-plans/check`: nothing is made or sent. */
export const FleetPlanCheckRequestSchema = FleetPlanRequestSchema.pick({ rows: true });

/** Refused rows carry every reason in operator words; both lists in line order. */
export const FleetPlanCheckSchema = z.object({
  accepted: z.array(
    z.object({ line: z.int().min(1), deviceId: DeviceIdSchema, command: DeviceCommandSchema }),
  ),
  refused: z.array(
    z.object({ line: z.int().min(1), deviceId: z.string(), reasons: z.array(z.string()) }),
  ),
});
export type FleetPlanCheck = z.infer<typeof FleetPlanCheckSchema>;

/** `POST /api/fleet-jobs/{jobId}/{action}`, no body. */
export const FLEET_JOB_ACTIONS = ['pause', 'resume', 'cancel'] as const;
export const FleetJobActionSchema = z.enum(FLEET_JOB_ACTIONS);
export type FleetJobAction = z.infer<typeof FleetJobActionSchema>;

/** docs/upstream.md, Batches. @throws RangeError when `batchSize` is not 1 to 50. */
export function splitIntoBatches(deviceIds: readonly string[], batchSize: number): string[][] {
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_DEVICES)
    throw new RangeError(`batch size must be 1 to ${MAX_BATCH_DEVICES}`);
  const batches: string[][] = [];
  for (let i = 0; i < deviceIds.length; i += batchSize)
    batches.push(deviceIds.slice(i, i + batchSize));
  return batches;
}

/**
 * docs/fleet-dispatch.md, Abort rule. `sentSoFar` includes failed batches. Never true at 100 or
 * before anything was tried.
 */
export function breaksAbortRule(
  counts: { sentSoFar: number; failedOrCancelled: number },
  abortPercent: number,
): boolean {
  if (abortPercent >= 100 || counts.sentSoFar === 0) return false;
  return (counts.failedOrCancelled / counts.sentSoFar) * 100 > abortPercent;
}

/** A device whose site was unbound since is tried, never failed (docs/fleet-dispatch.md). */
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

/** A device whose site was unbound since counts as `unbound`, whatever its last status. */
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

export interface FleetProgressSample {
  atMs: number;
  sent: number;
  completed: number;
  cancelled: number;
  failed: number;
}

/**
 * Derived from the batches: sent at `sentAt`, final at `outcomeAt` (else the job's `updatedAt`).
 * Starts at creation with zeros, cumulative, in time order; a live job ends at `nowMs`.
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
