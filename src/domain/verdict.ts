import { z } from 'zod';
import type { CancellationReason, CommandStatus } from './command.ts';
import type { PowerControl } from './power-control.ts';
import {
  energyWh,
  expectedSampleCount,
  sampleInWindow,
  type TelemetrySample,
} from './telemetry.ts';

/**
 * A verdict for every device of every command: did the battery do what it was commanded, judged
 * on the vendor's measured telemetry (docs/verification.md has the rules and their tolerances).
 */
export const VERDICTS = [
  'delivered',
  'limitedBySoc',
  'limitedBySiteLimit',
  'partlyDelivered',
  'notFollowing',
  'noData',
  'cancelled',
] as const;
export const VerdictSchema = z.enum(VERDICTS);
export type Verdict = z.infer<typeof VerdictSchema>;

/** What the pages call each verdict, and what it means, in the operator's words. */
export const VERDICT_WORDS: Record<Verdict, { label: string; meaning: string }> = {
  delivered: {
    label: 'Delivered',
    meaning: 'The battery held the commanded power through the window.',
  },
  limitedBySoc: {
    label: 'Limited by state of charge',
    meaning: 'The battery followed until its state of charge reached a cut-off, then held.',
  },
  limitedBySiteLimit: {
    label: 'Limited by a site limit',
    meaning:
      "The battery gave less than commanded because the site's import or export limit held it.",
  },
  partlyDelivered: {
    label: 'Partly delivered',
    meaning: 'The battery followed for part of the window only, with no limit to explain the rest.',
  },
  notFollowing: {
    label: 'Not following',
    meaning: 'The device was online and measured, but its power did not follow the command.',
  },
  noData: {
    label: 'No data',
    meaning: 'Too few measurements of the window to judge: the device was offline or silent.',
  },
  cancelled: {
    label: 'Cancelled',
    meaning: 'The command was cancelled; the alarms active then are listed.',
  },
};

/**
 * The tolerances of the rules (docs/verification.md). A sample follows a target power when it is
 * within `powerShare` of it or `powerFloorW`, whichever is larger: 5% of 5 kW is 250 W.
 */
export const VERDICT_TOLERANCES = {
  /** Share of the target power a sample may differ by and still follow. */
  powerShare: 0.05,
  /** W a sample may always differ by: meters and inverters are not exact near zero. */
  powerFloorW: 100,
  /** Delivered (or limited) when at least this share of the window's samples follow (or are held). */
  followingShare: 0.9,
  /** Not following when fewer than this share of the samples follow. */
  notFollowingShare: 0.1,
  /** No data below this share of the samples the window should have. */
  minimumCoverage: 0.5,
  /** Percentage points within which a state of charge is at a known cut-off. */
  socMarginPercent: 1,
  /** Percentage points within which a state of charge has not moved between two samples. */
  heldSocPercent: 0.2,
  /** W within which grid power is at a known site limit, or has not moved between two samples. */
  siteLimitMarginW: 100,
} as const;

const AlarmSchema = z.object({ alarmCode: z.string(), alarmName: z.string() });
export type VerdictAlarm = z.infer<typeof AlarmSchema>;

export const DeviceCommandVerdictSchema = z.object({
  verdict: VerdictSchema,
  /** Wh over the effective window, signed like battery power; null without a target power. */
  commandedEnergyWh: z.number().nullable(),
  /** Wh the battery gave over the window's measured samples, signed like battery power. */
  deliveredEnergyWh: z.number().nullable(),
  /** Share of the effective window's expected samples that were measured, 0 to 1. */
  coverage: z.number().min(0).max(1),
  samples: z.object({
    expected: z.number().int().nonnegative(),
    present: z.number().int().nonnegative(),
    following: z.number().int().nonnegative(),
    limitedBySoc: z.number().int().nonnegative(),
    limitedBySiteLimit: z.number().int().nonnegative(),
  }),
  /** The device's alarms active when a cancelled command ended. */
  alarms: z.array(AlarmSchema),
});
export type DeviceCommandVerdict = z.infer<typeof DeviceCommandVerdictSchema>;

/** The command as the read model knows it; times epoch ms on the vendor's clock. */
export interface VerdictCommand {
  powerControl: PowerControl;
  startMs: number;
  endMs: number;
  status: CommandStatus;
  cancellationReason?: CancellationReason | undefined;
  startedAtMs?: number | undefined;
  /** `completedAt` or `cancelledAt`. */
  endedAtMs?: number | undefined;
}

export interface VerdictInput {
  command: VerdictCommand;
  /**
   * In any order, each stamped at the end of its period; samples outside the window are ignored
   * but for the one just before it.
   */
  samples: readonly TelemetrySample[];
  samplingPeriodMs: number;
  device: { maxChargePowerW: number; maxDischargePowerW: number };
  /** From the device's configuration when known; the command's own cut-offs win. */
  cutoffs?: { chargeCutoffSocPercent?: number; dischargeCutoffSocPercent?: number } | undefined;
  /** From the device's configuration when known; the command's own limits win. */
  siteLimits?: { siteImportLimitW?: number; siteExportLimitW?: number } | undefined;
  activeAlarms?: readonly VerdictAlarm[] | undefined;
}

/** What each measured sample of the window showed. */
type SampleFinding = 'following' | 'limitedBySoc' | 'limitedBySiteLimit' | 'unexplained';

/**
 * The effective window of a command: from its start (or later, when it started late) to its end
 * (or earlier, when it completed or was cancelled early). Empty when it never started.
 */
export function effectiveWindowOf(command: VerdictCommand): { fromMs: number; toMs: number } {
  const fromMs = Math.max(command.startMs, command.startedAtMs ?? command.startMs);
  const toMs = Math.min(command.endMs, command.endedAtMs ?? command.endMs);
  if (command.status === 'cancelled' && command.startedAtMs === undefined)
    return { fromMs, toMs: fromMs };
  return { fromMs, toMs: Math.max(fromMs, toMs) };
}

/** The target power the device can give: the command's, clipped to the device's limits. */
function reachableTargetW(target: number, device: VerdictInput['device']): number {
  return Math.min(device.maxDischargePowerW, Math.max(-device.maxChargePowerW, target));
}

function powerToleranceW(targetW: number): number {
  return Math.max(
    VERDICT_TOLERANCES.powerShare * Math.abs(targetW),
    VERDICT_TOLERANCES.powerFloorW,
  );
}

interface Limits {
  chargeCutoff?: number | undefined;
  dischargeCutoff?: number | undefined;
  importLimitW?: number | undefined;
  exportLimitW?: number | undefined;
}

function limitsOf(input: VerdictInput): Limits {
  const limits = limitsInForce(input.command.powerControl, input);
  return {
    chargeCutoff: limits.chargeCutoffSocPercent,
    dischargeCutoff: limits.dischargeCutoffSocPercent,
    importLimitW: limits.siteImportLimitW,
    exportLimitW: limits.siteExportLimitW,
  };
}

/** Cut-offs (percent) and site limits (W) a command runs under; absent = unknown. */
export interface LimitsInForce {
  chargeCutoffSocPercent?: number | undefined;
  dischargeCutoffSocPercent?: number | undefined;
  siteImportLimitW?: number | undefined;
  siteExportLimitW?: number | undefined;
}

/**
 * The cut-offs and site limits a command runs under (docs/verification.md, Rules): the command's
 * own, else the device's configured ones when known.
 */
export function limitsInForce(
  control: Partial<PowerControl>,
  configured: Pick<VerdictInput, 'cutoffs' | 'siteLimits'>,
): LimitsInForce {
  return {
    chargeCutoffSocPercent:
      control.chargeCutoffSocPercent ?? configured.cutoffs?.chargeCutoffSocPercent,
    dischargeCutoffSocPercent:
      control.dischargeCutoffSocPercent ?? configured.cutoffs?.dischargeCutoffSocPercent,
    siteImportLimitW: control.siteImportLimitW ?? configured.siteLimits?.siteImportLimitW,
    siteExportLimitW: control.siteExportLimitW ?? configured.siteLimits?.siteExportLimitW,
  };
}

/**
 * A sample short of a target power, held by a cut-off: at the known cut-off of the command's
 * direction, or, with the cut-off unknown, the battery stopped and its state of charge still
 * after it had followed in the window (a battery idle from the start is not told from one that
 * ignores the command).
 */
function heldBySoc(
  sample: TelemetrySample,
  previous: TelemetrySample | undefined,
  targetW: number,
  limits: Limits,
  followedBefore: boolean,
): boolean {
  const { socMarginPercent, heldSocPercent } = VERDICT_TOLERANCES;
  const cutoff = targetW > 0 ? limits.dischargeCutoff : limits.chargeCutoff;
  if (cutoff !== undefined)
    return targetW > 0
      ? sample.socPercent <= cutoff + socMarginPercent
      : sample.socPercent >= cutoff - socMarginPercent;
  return (
    followedBefore &&
    Math.abs(sample.batteryPowerW) <= powerToleranceW(targetW) &&
    previous !== undefined &&
    Math.abs(sample.socPercent - previous.socPercent) <= heldSocPercent
  );
}

/**
 * A sample short of a target power, held by a site limit: the grid at the known limit of the
 * command's direction (exporting while discharging, importing while charging), or, with the limit
 * unknown, the grid still and flowing that way while the battery still gives power.
 */
function heldBySiteLimit(
  sample: TelemetrySample,
  previous: TelemetrySample | undefined,
  targetW: number,
  limits: Limits,
): boolean {
  const margin = VERDICT_TOLERANCES.siteLimitMarginW;
  const limit = targetW > 0 ? limits.exportLimitW : limits.importLimitW;
  if (limit !== undefined)
    return targetW > 0 ? sample.gridPowerW <= -limit + margin : sample.gridPowerW >= limit - margin;
  const towardsLimit = targetW > 0 ? -sample.gridPowerW : sample.gridPowerW;
  return (
    towardsLimit > margin &&
    Math.abs(sample.batteryPowerW) > powerToleranceW(targetW) &&
    previous !== undefined &&
    Math.abs(sample.gridPowerW - previous.gridPowerW) <= margin
  );
}

function findingForTarget(
  sample: TelemetrySample,
  previous: TelemetrySample | undefined,
  targetW: number,
  limits: Limits,
  followedBefore: boolean,
): SampleFinding {
  const tolerance = powerToleranceW(targetW);
  if (Math.abs(sample.batteryPowerW - targetW) <= tolerance) return 'following';
  // Giving less than commanded in the command's direction; more is never explained by a limit.
  const short = Math.sign(targetW) * (targetW - sample.batteryPowerW) > 0;
  if (!short || targetW === 0) return 'unexplained';
  if (heldBySoc(sample, previous, targetW, limits, followedBefore)) return 'limitedBySoc';
  if (heldBySiteLimit(sample, previous, targetW, limits)) return 'limitedBySiteLimit';
  return 'unexplained';
}

/** A command of limits only follows while the site and the battery stay within them. */
function findingForLimits(sample: TelemetrySample, limits: Limits): SampleFinding {
  const { siteLimitMarginW, socMarginPercent, powerFloorW } = VERDICT_TOLERANCES;
  const broken =
    (limits.exportLimitW !== undefined &&
      sample.gridPowerW < -limits.exportLimitW - siteLimitMarginW) ||
    (limits.importLimitW !== undefined &&
      sample.gridPowerW > limits.importLimitW + siteLimitMarginW) ||
    (limits.chargeCutoff !== undefined &&
      sample.socPercent > limits.chargeCutoff + socMarginPercent &&
      sample.batteryPowerW < -powerFloorW) ||
    (limits.dischargeCutoff !== undefined &&
      sample.socPercent < limits.dischargeCutoff - socMarginPercent &&
      sample.batteryPowerW > powerFloorW);
  return broken ? 'unexplained' : 'following';
}

function verdictOfFindings(counts: Record<SampleFinding, number>, present: number): Verdict {
  const { followingShare, notFollowingShare } = VERDICT_TOLERANCES;
  if (counts.following >= followingShare * present) return 'delivered';
  const held = counts.limitedBySoc + counts.limitedBySiteLimit;
  if (held > 0 && counts.following + held >= followingShare * present)
    return counts.limitedBySoc >= counts.limitedBySiteLimit ? 'limitedBySoc' : 'limitedBySiteLimit';
  if (counts.following < notFollowingShare * present) return 'notFollowing';
  return 'partlyDelivered';
}

/**
 * The verdict of one device for one command, from the samples of its effective window
 * (docs/verification.md, Rules). Pure; the caller reads the samples within the device's budget.
 *
 * In order: a cancelled command is `cancelled` (with `activeAlarms`); fewer samples than
 * `minimumCoverage` of the window's is `noData`; then each measured sample follows the target
 * power (within its tolerance), is held by a cut-off or a site limit, or is unexplained, and the
 * shares decide: `delivered`, `limitedBySoc`, `limitedBySiteLimit`, `notFollowing`, else
 * `partlyDelivered`. A command of limits only is delivered while the samples stay within them.
 */
export function verdictOf(input: VerdictInput): DeviceCommandVerdict {
  const { command, samplingPeriodMs } = input;
  const { fromMs, toMs } = effectiveWindowOf(command);
  const sorted = [...input.samples].sort((a, b) => a.atMs - b.atMs);
  const expected = expectedSampleCount(fromMs, toMs, samplingPeriodMs);
  const target = command.powerControl.targetBatteryPowerW;
  const targetW = target === undefined ? undefined : reachableTargetW(target, input.device);
  const limits = limitsOf(input);
  const counts: Record<SampleFinding, number> = {
    following: 0,
    limitedBySoc: 0,
    limitedBySiteLimit: 0,
    unexplained: 0,
  };
  let present = 0;
  let deliveredWh = 0;
  let previous: TelemetrySample | undefined;
  for (const sample of sorted) {
    if (sampleInWindow(sample.atMs, fromMs, toMs)) {
      present += 1;
      deliveredWh += energyWh(sample.batteryPowerW, samplingPeriodMs);
      const finding =
        targetW === undefined
          ? findingForLimits(sample, limits)
          : findingForTarget(sample, previous, targetW, limits, counts.following > 0);
      counts[finding] += 1;
    }
    previous = sample;
  }
  const coverage = expected === 0 ? (present > 0 ? 1 : 0) : Math.min(1, present / expected);
  const verdict: Verdict =
    command.status === 'cancelled'
      ? 'cancelled'
      : present === 0 || coverage < VERDICT_TOLERANCES.minimumCoverage
        ? 'noData'
        : verdictOfFindings(counts, present);
  return {
    verdict,
    commandedEnergyWh: targetW === undefined ? null : energyWh(targetW, toMs - fromMs),
    deliveredEnergyWh: present === 0 ? null : deliveredWh,
    coverage,
    samples: {
      expected,
      present,
      following: counts.following,
      limitedBySoc: counts.limitedBySoc,
      limitedBySiteLimit: counts.limitedBySiteLimit,
    },
    alarms: verdict === 'cancelled' ? [...(input.activeAlarms ?? [])] : [],
  };
}

/**
 * The verdict of a window still running, on the samples read up to `readToMs` (epoch ms, the end
 * of the last period read): the window judged as though it ended there, so its energies are those
 * commanded and delivered so far (docs/verification.md, While a window runs). The verdict after
 * the window replaces it.
 */
export function verdictSoFar(input: VerdictInput, readToMs: number): DeviceCommandVerdict {
  const { command } = input;
  return verdictOf({
    ...input,
    command: { ...command, endedAtMs: Math.min(command.endedAtMs ?? readToMs, readToMs) },
  });
}

/**
 * A device flagged as not following: `notFollowing` in at least `atLeast` of its last `of`
 * verdicts (newest first), so a selection can leave it out.
 */
export const NOT_FOLLOWING_FLAG = { atLeast: 2, of: 3 } as const;

export function isRepeatedlyNotFollowing(
  verdictsNewestFirst: readonly Verdict[],
  flag: { atLeast: number; of: number } = NOT_FOLLOWING_FLAG,
): boolean {
  return notFollowingFlagOf(verdictsNewestFirst, flag) !== undefined;
}

/**
 * The flag of {@link isRepeatedlyNotFollowing} with its count, for the words "did not follow 2 of
 * its last 3 commands": `notFollowing` verdicts among the last `of` (newest first), and how many
 * verdicts those last were (fewer than `of` for a device with fewer commands).
 *
 * @returns undefined when the device is not flagged.
 */
export function notFollowingFlagOf(
  verdictsNewestFirst: readonly Verdict[],
  flag: { atLeast: number; of: number } = NOT_FOLLOWING_FLAG,
): { notFollowing: number; of: number } | undefined {
  const last = verdictsNewestFirst.slice(0, flag.of);
  const notFollowing = last.filter((verdict) => verdict === 'notFollowing').length;
  return notFollowing >= flag.atLeast ? { notFollowing, of: last.length } : undefined;
}
