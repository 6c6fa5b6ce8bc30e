import type { OverviewCommand } from '#domain/overview.ts';

/** One entry of a command section: a device command's line, or a batch's lines folded. */
export type OverviewEntry =
  | { kind: 'line'; line: OverviewCommand }
  | { kind: 'batch'; batchCommandId: string; lines: OverviewCommand[] };

/**
 * A section's lines with each batch's folded into one entry where its first line was
 * (docs/architecture.md, Overview), so 50 devices do not push everything else out of view.
 *
 * @param lines the section's lines, in the overview's order.
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
