import type { BatchCounts } from '../lib/batch-progress.ts';

const SEGMENTS = ['received', 'executing', 'completed', 'cancelled'] as const;
const LABELS: Record<(typeof SEGMENTS)[number] | 'unknown', string> = {
  received: 'Received',
  executing: 'Executing',
  completed: 'Completed',
  cancelled: 'Cancelled',
  unknown: 'Not read yet',
};

/**
 * The batch's progress: a bar of final commands out of all (with coloured segments per status,
 * hidden from assistive tech) and the counts per status as a description list.
 */
export function BatchProgressBar({ counts }: { counts: BatchCounts }) {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const final = counts.completed + counts.cancelled;
  return (
    <div className="stack">
      <div
        role="progressbar"
        aria-label="Device commands final"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={final}
        aria-valuetext={`${final} of ${total} final`}
        className="batch-progress"
      >
        {SEGMENTS.map((status) =>
          counts[status] > 0 ? (
            <span
              key={status}
              className={`seg-${status}`}
              style={{ width: `${(100 * counts[status]) / Math.max(total, 1)}%` }}
            />
          ) : null,
        )}
      </div>
      <dl className="batch-counts" aria-label="Device commands by status">
        {[...SEGMENTS, 'unknown' as const].map((status) =>
          status === 'unknown' && counts.unknown === 0 ? null : (
            <div key={status} data-testid={`count-${status}`}>
              <dt>{LABELS[status]}</dt>
              <dd>{counts[status]}</dd>
            </div>
          ),
        )}
      </dl>
    </div>
  );
}
