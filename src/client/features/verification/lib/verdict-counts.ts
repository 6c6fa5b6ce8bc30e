import { VERDICTS, type Verdict } from '#domain/verdict.ts';

/** How many of each verdict, every verdict present (0 when none). */
export type VerdictCounts = Record<Verdict, number>;

/** Counts verdicts (a batch's, a fleet job's devices) per verdict, in `VERDICTS`' order. */
export function countVerdicts(verdicts: Iterable<Verdict>): VerdictCounts {
  const counts = Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as VerdictCounts;
  for (const verdict of verdicts) counts[verdict] += 1;
  return counts;
}
