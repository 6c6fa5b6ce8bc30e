import { countedDevices, finalDevices, type BatchCounts } from '../lib/batch-progress.ts';

const SEGMENTS = [
  'received',
  'executing',
  'completed',
  'cancelled',
  'unbound',
  'notFound',
] as const;
const LABELS: Record<keyof BatchCounts, string> = {
  received: 'Received',
  executing: 'Executing',
  completed: 'Completed',
  cancelled: 'Cancelled',
  unknown: 'Not read yet',
  confirming: 'Not confirmed yet',
  notFound: 'Not found in history',
  unbound: 'Site unbound',
};
/** Counts shown only when some device is there. */
const WHEN_ANY = ['unknown', 'confirming', 'notFound', 'unbound'] as const;

/** The batch's progress over every device sent: a bar (hidden from assistive tech) and the counts as a list. */
export function BatchProgressBar({ counts }: { counts: BatchCounts }) {
  const total = countedDevices(counts);
  const final = finalDevices(counts);
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
      <dl className="batch-counts" aria-label="Devices by status">
        {(
          ['received', 'executing', 'completed', 'cancelled', ...WHEN_ANY] as (keyof BatchCounts)[]
        ).map((status) =>
          (WHEN_ANY as readonly string[]).includes(status) && counts[status] === 0 ? null : (
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
