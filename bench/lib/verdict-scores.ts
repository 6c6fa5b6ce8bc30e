/**
 * The pure sums of the bench's `verify` group (`figures/verify.ts`): how the seeded classes were
 * found, and how far a delivered power curve lies from the truth.
 */
import type { EventPowerPoint } from '#domain/fleet-power.ts';
import type { Verdict } from '#domain/verdict.ts';
import type { Behaviour } from '#sandbox/model/behaviours.ts';

/** The verdict each seeded behaviour should get for a discharge (src/sandbox/README.md, Behaviours). */
export const EXPECTED_VERDICT: Record<Exclude<Behaviour, 'faultsDuringCommand'>, Verdict> = {
  follows: 'delivered',
  ignoresCommands: 'notFollowing',
  goesOffline: 'noData',
  nearCutoff: 'limitedBySoc',
  siteLimited: 'limitedBySiteLimit',
};

/** Precision and recall of each seeded class's expected verdict, percent. */
export function classScores(
  behaviourOf: ReadonlyMap<string, Behaviour>,
  verdictOf: ReadonlyMap<string, Verdict>,
): {
  behaviour: Behaviour;
  expected: Verdict;
  devices: number;
  precision: number;
  recall: number;
}[] {
  return Object.entries(EXPECTED_VERDICT).map(([behaviour, expected]) => {
    let truePositives = 0;
    let devicesOfClass = 0;
    let judgedSo = 0;
    for (const [deviceId, actual] of behaviourOf) {
      const verdict = verdictOf.get(deviceId);
      if (actual === behaviour) devicesOfClass += 1;
      if (verdict === expected) judgedSo += 1;
      if (actual === behaviour && verdict === expected) truePositives += 1;
    }
    return {
      behaviour: behaviour as Behaviour,
      expected,
      devices: devicesOfClass,
      precision:
        judgedSo === 0 ? (devicesOfClass === 0 ? 100 : 0) : (100 * truePositives) / judgedSo,
      recall: devicesOfClass === 0 ? 100 : (100 * truePositives) / devicesOfClass,
    };
  });
}

/**
 * How far, in steps, each point of the BFF's delivered curve lies from the truth's: the smallest
 * shift whose truth point is within the tolerance (0.5% of the step's commanded power, at least
 * one device's 100 W). A point off by more than 3 steps, or a step of the truth missing from
 * the measured curve, counts as 4.
 */
export function curveAgainstTruth(
  measured: readonly EventPowerPoint[],
  truth: readonly EventPowerPoint[],
  stepMs: number,
): { offsetPeriods: number; maxErrorW: number } {
  const truthAt = new Map(truth.map((point) => [point.atMs, point]));
  const measuredAt = new Set(measured.map((point) => point.atMs));
  // A step of the truth the measured curve lacks is as far off as can be.
  let offsetPeriods = truth.every((point) => measuredAt.has(point.atMs)) ? 0 : 4;
  let maxErrorW = 0;
  for (const point of measured) {
    const same = truthAt.get(point.atMs);
    maxErrorW = Math.max(maxErrorW, Math.abs(point.deliveredW - (same?.deliveredW ?? 0)));
    const toleranceW = Math.max(100, Math.abs(point.commandedW) * 0.005);
    let shift = 4;
    for (let k = 0; k <= 3 && shift === 4; k += 1)
      for (const sign of [1, -1]) {
        const other = truthAt.get(point.atMs + sign * k * stepMs);
        if (other && Math.abs(other.deliveredW - point.deliveredW) <= toleranceW) {
          shift = k;
          break;
        }
      }
    offsetPeriods = Math.max(offsetPeriods, shift);
  }
  return { offsetPeriods, maxErrorW };
}
