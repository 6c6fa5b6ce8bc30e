import { z } from 'zod';

/**
 * The vendor's telemetry in the product's units (docs/upstream.md, Telemetry; docs/verification.md):
 * the vendor's kW become W, its timestamps epoch ms. Signs are the vendor's: battery power
 * positive while it discharges (the sign of `targetBatteryPowerW`), grid power positive while the
 * site imports.
 */
export const TelemetrySampleSchema = z.object({
  /**
   * The vendor's timestamp, epoch ms: the end of the sampling period the sample describes. Its
   * powers are the period's means, its state of charge the instant's (docs/upstream.md, Telemetry).
   */
  atMs: z.number().int(),
  batteryPowerW: z.number(),
  socPercent: z.number().min(0).max(100),
  gridPowerW: z.number(),
  pvPowerW: z.number(),
});
export type TelemetrySample = z.infer<typeof TelemetrySampleSchema>;

/** The most samples one page of the vendor's telemetry history holds (docs/upstream.md, Telemetry). */
export const TELEMETRY_PAGE_SIZE = 500;

/** The vendor's two sampling rates, `samplingRate` 60 or 300 s, in ms. */
export const SAMPLING_PERIODS_MS = [60_000, 300_000] as const;

/** A device whose configuration was never read samples every minute, the vendor's finer rate. */
export const DEFAULT_SAMPLING_PERIOD_MS = 60_000;

/**
 * How long a stretch of time one page of history covers at a sampling period: 500 samples, so
 * 8 h 20 min at 60 s.
 */
export function readSpanMs(samplingPeriodMs: number): number {
  return TELEMETRY_PAGE_SIZE * samplingPeriodMs;
}

/**
 * How many samples of periods within `[fromMs, toMs)` a device sampling every `samplingPeriodMs`,
 * on multiples of it since the epoch, takes: those stamped in `(fromMs, toMs]`, each the end of its
 * period (120 for two hours at 60 s).
 */
export function expectedSampleCount(
  fromMs: number,
  toMs: number,
  samplingPeriodMs: number,
): number {
  const first = Math.floor(fromMs / samplingPeriodMs) * samplingPeriodMs + samplingPeriodMs;
  return first <= toMs ? Math.floor((toMs - first) / samplingPeriodMs) + 1 : 0;
}

/** Whether a sample stamped `atMs` describes a period within `[fromMs, toMs)`: `(fromMs, toMs]`. */
export function sampleInWindow(atMs: number, fromMs: number, toMs: number): boolean {
  return atMs > fromMs && atMs <= toMs;
}

/** Energy of power held for a duration: W x ms in Wh. */
export function energyWh(powerW: number, durationMs: number): number {
  return (powerW * durationMs) / 3_600_000;
}
