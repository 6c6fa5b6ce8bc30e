import { VERDICTS } from '#domain/verdict.ts';
import type { VerdictCounts as Counts } from '../lib/verdict-counts.ts';
import { VerdictBadge } from './verdict-badge.tsx';
import './verification.css';

const devicesWord = (count: number) => (count === 1 ? '1 device' : `${count} devices`);

/**
 * How many devices got each verdict (a batch's, a fleet job's, a plan's): a bar of the shares in
 * the verdicts' colours (a picture only) over one badge per verdict present with its count, in
 * `VERDICTS`' order; "No verdicts yet" when there are none.
 *
 * @param label names the list for assistive technology ("Verdicts of the batch's devices").
 */
export function VerdictCounts({ counts, label }: { counts: Counts; label: string }) {
  const present = VERDICTS.filter((verdict) => counts[verdict] > 0);
  const total = present.reduce((sum, verdict) => sum + counts[verdict], 0);
  if (total === 0)
    return (
      <p className="verdict-counts empty-state">
        No verdicts yet: a verdict comes a minute after a command&apos;s window ends.
      </p>
    );
  return (
    <div className="verdict-counts">
      <div className="verdict-counts-bar" aria-hidden="true">
        {present.map((verdict) => (
          <span
            key={verdict}
            data-verdict={verdict}
            style={{
              flexGrow: counts[verdict],
              background: `var(--verdict-${verdict})`,
            }}
          />
        ))}
      </div>
      <ul aria-label={`${label}: ${devicesWord(total)}`}>
        {present.map((verdict) => (
          <li key={verdict}>
            <VerdictBadge verdict={verdict}>
              <span className="verdict-badge-count">
                <span className="visually-hidden">: </span>
                {counts[verdict]}
              </span>
            </VerdictBadge>
          </li>
        ))}
      </ul>
    </div>
  );
}
