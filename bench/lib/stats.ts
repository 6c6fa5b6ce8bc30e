/** Nearest-rank percentile (0 < p <= 100) of a non-empty sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** Median (mean of the two middle values when the count is even). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Runs `a` and `b` alternately `rounds` times (A, B, A, B ...) so drift on a shared machine hits
 * both alike, and returns both samples.
 */
export async function interleaved<T>(
  rounds: number,
  a: (round: number) => Promise<T>,
  b: (round: number) => Promise<T>,
): Promise<{ a: T[]; b: T[] }> {
  const samples = { a: [] as T[], b: [] as T[] };
  for (let round = 0; round < rounds; round++) {
    samples.a.push(await a(round));
    samples.b.push(await b(round));
  }
  return samples;
}
