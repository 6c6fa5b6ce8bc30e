import type { OverviewCommand } from '../../../../domain/overview.ts';

/** One entry of a command section: a device command's line, or a batch's lines folded. */
export type OverviewEntry =
  | { kind: 'line'; line: OverviewCommand }
  | { kind: 'batch'; batchCommandId: string; lines: OverviewCommand[] };

/**
 * The lines of one overview section with each batch's device commands folded into one entry, at
 * the place of its first line (docs/architecture.md, Overview): a batch of 50 devices is one
 * entry, opened to its devices, rather than 50 lines that push everything else out of view. A
 * batch with one line in the section keeps it as a line.
 *
 * @param lines the section's lines, in the order the overview answers them.
 */
export function foldBatchLines(lines: readonly OverviewCommand[]): OverviewEntry[] {
  const byBatch = new Map<string, OverviewCommand[]>();
  for (const line of lines)
    if (line.batchCommandId) {
      const batch = byBatch.get(line.batchCommandId) ?? [];
      batch.push(line);
      byBatch.set(line.batchCommandId, batch);
    }
  const entries: OverviewEntry[] = [];
  const folded = new Set<string>();
  for (const line of lines) {
    const batchCommandId = line.batchCommandId;
    const batch = batchCommandId ? byBatch.get(batchCommandId) : undefined;
    if (!batchCommandId || !batch || batch.length < 2) {
      entries.push({ kind: 'line', line });
      continue;
    }
    if (folded.has(batchCommandId)) continue;
    folded.add(batchCommandId);
    entries.push({ kind: 'batch', batchCommandId, lines: batch });
  }
  return entries;
}
