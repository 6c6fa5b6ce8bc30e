import { z } from 'zod';
import { CancellationReasonSchema, CommandStatusSchema } from './command.ts';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema } from './ids.ts';
import { PowerControlSchema } from './power-control.ts';
import type { TelemetrySample } from './telemetry.ts';
import { UtcTimestampSchema } from './time.ts';
import { DeviceCommandVerdictSchema, VerdictSchema, VERDICTS, type Verdict } from './verdict.ts';

// What the product API answers about verdicts (docs/verification.md); the rules are verdict.ts's.

/**
 * A window's samples as columns, one entry per sample in time order: a two-hour window at 60 s is
 * 120 numbers per column, about a sixth of the size of as many objects.
 */
export const SampleColumnsSchema = z.object({
  atMs: z.array(z.number().int()),
  batteryPowerW: z.array(z.number()),
  socPercent: z.array(z.number()),
  gridPowerW: z.array(z.number()),
  pvPowerW: z.array(z.number()),
});
export type SampleColumns = z.infer<typeof SampleColumnsSchema>;

/** One device's verdict on one command, with what it was judged on. */
export const CommandVerdictRecordSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  /** When the command came from a batch the BFF sent and confirmed. */
  batchCommandId: BatchCommandIdSchema.optional(),
  powerControl: PowerControlSchema,
  startTime: UtcTimestampSchema,
  endTime: UtcTimestampSchema,
  status: CommandStatusSchema,
  cancelReason: CancellationReasonSchema.optional(),
  /** The effective window judged: from the start (or later start) to the end (or earlier end). */
  judgedFrom: UtcTimestampSchema,
  judgedTo: UtcTimestampSchema,
  judgedAt: UtcTimestampSchema,
  samplingPeriodMs: z.number().int().positive(),
  result: DeviceCommandVerdictSchema,
  /** The samples of the effective window, for the chart; absent when none were read. */
  samples: SampleColumnsSchema.optional(),
  /**
   * The window still runs: judged on the samples read so far, to `judgedTo` (domain
   * `verdictSoFar`); the verdict after its end replaces it.
   */
  running: z.literal(true).optional(),
});
export type CommandVerdictRecord = z.infer<typeof CommandVerdictRecordSchema>;

/** Answer of `GET /api/devices/{deviceId}/verdicts`: newest window first. */
export const DeviceVerdictsAnswerSchema = z.object({
  deviceId: DeviceIdSchema,
  verdicts: z.array(CommandVerdictRecordSchema),
  /** The windows running now that were read while an operator watched, newest first. */
  running: z.array(CommandVerdictRecordSchema).optional(),
});
export type DeviceVerdictsAnswer = z.infer<typeof DeviceVerdictsAnswerSchema>;

/** Samples' rows into columns, in the order given. */
export function columnsOfRows(samples: readonly TelemetrySample[]): SampleColumns {
  return {
    atMs: samples.map((sample) => sample.atMs),
    batteryPowerW: samples.map((sample) => sample.batteryPowerW),
    socPercent: samples.map((sample) => sample.socPercent),
    gridPowerW: samples.map((sample) => sample.gridPowerW),
    pvPowerW: samples.map((sample) => sample.pvPowerW),
  };
}

/** Columns into samples' rows, for the rules and the charts; a short column reads as 0. */
export function rowsOfColumns(columns: SampleColumns): TelemetrySample[] {
  return columns.atMs.map((atMs, index) => ({
    atMs,
    batteryPowerW: columns.batteryPowerW[index] ?? 0,
    socPercent: columns.socPercent[index] ?? 0,
    gridPowerW: columns.gridPowerW[index] ?? 0,
    pvPowerW: columns.pvPowerW[index] ?? 0,
  }));
}

/** One device of an event (a batch or a fleet job) and its verdict, without its samples. */
export const EventDeviceVerdictSchema = z.object({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
  batchCommandId: BatchCommandIdSchema.optional(),
  verdict: VerdictSchema,
  commandedEnergyWh: z.number().nullable(),
  deliveredEnergyWh: z.number().nullable(),
  coverage: z.number().min(0).max(1),
});
export type EventDeviceVerdict = z.infer<typeof EventDeviceVerdictSchema>;

/** One step of an event's curve, W summed over its devices. */
export const EventPowerPointSchema = z.object({
  atMs: z.number().int(),
  commandedW: z.number(),
  deliveredW: z.number(),
  measuredDevices: z.int(),
});

/**
 * Answer of `GET /api/batches/{batchCommandId}/verdicts` and `GET /api/fleet-jobs/{jobId}/verdicts`
 * (docs/verification.md, Fleet figures): the commanded against delivered power over the window,
 * the count of each verdict, and each device's.
 */
export const EventVerdictsAnswerSchema = z.object({
  /** Device commands of the event the BFF knows; those without a verdict yet are `pending`. */
  devices: z.int(),
  pending: z.int(),
  counts: z.record(VerdictSchema, z.int()),
  /** Wh, signed like battery power (positive discharges), over the devices with a verdict. */
  commandedEnergyWh: z.number(),
  deliveredEnergyWh: z.number(),
  /** Whole percent of the commanded energy delivered; absent when nothing was commanded. */
  deliveredPercent: z.int().optional(),
  /** One point per sampling period over the event's window. */
  stepMs: z.number().int().positive(),
  curve: z.array(EventPowerPointSchema),
  verdicts: z.array(EventDeviceVerdictSchema),
});
export type EventVerdictsAnswer = z.infer<typeof EventVerdictsAnswerSchema>;

/** Zero of each verdict, in the rules' order. */
export function emptyVerdictCounts(): Record<Verdict, number> {
  return Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<Verdict, number>;
}
