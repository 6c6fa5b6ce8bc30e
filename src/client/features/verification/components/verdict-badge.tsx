import type { ReactNode } from 'react';
import { VERDICT_WORDS, type Verdict } from '#domain/verdict.ts';
import './verification.css';

/**
 * Each verdict's icon, a shape of its own so a badge reads in greyscale too: a tick, a battery
 * run low, a ceiling, a half circle, a cross, a dashed circle, a circle struck through.
 */
const ICON_SHAPES: Record<Verdict, ReactNode> = {
  delivered: <path d="M3 8.5l3.2 3.2L13 4.8" fill="none" />,
  limitedBySoc: (
    <>
      <rect x="1.5" y="4.5" width="11" height="7" rx="1" fill="none" />
      <rect x="12.5" y="6.5" width="2" height="3" stroke="none" fill="currentColor" />
      <rect x="3" y="6" width="2.5" height="4" stroke="none" fill="currentColor" />
    </>
  ),
  limitedBySiteLimit: (
    <>
      <path d="M2 2.5h12" fill="none" />
      <path d="M8 14V5.5M5 8.5l3-3 3 3" fill="none" />
    </>
  ),
  partlyDelivered: (
    <>
      <circle cx="8" cy="8" r="5.75" fill="none" />
      <path d="M8 2.25a5.75 5.75 0 0 0 0 11.5z" stroke="none" fill="currentColor" />
    </>
  ),
  notFollowing: <path d="M4 4l8 8M12 4l-8 8" fill="none" />,
  noData: <circle cx="8" cy="8" r="5.75" fill="none" strokeDasharray="2.2 2" />,
  cancelled: (
    <>
      <circle cx="8" cy="8" r="5.75" fill="none" />
      <path d="M4 12L12 4" fill="none" />
    </>
  ),
};

/** A verdict's icon in its colour (`--verdict-<verdict>`), hidden from assistive technology: its words go beside it. */
export function VerdictIcon({ verdict }: { verdict: Verdict }) {
  return (
    <svg
      className="verdict-icon"
      viewBox="0 0 16 16"
      width="16"
      height="16"
      aria-hidden="true"
      focusable="false"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      style={{ color: `var(--verdict-${verdict})` }}
      data-verdict-icon={verdict}
    >
      {ICON_SHAPES[verdict]}
    </svg>
  );
}

/**
 * A verdict as a badge: its icon and label (`VERDICT_WORDS`), edged in its colour; its meaning
 * as the pointer's tooltip (`title`). Pages that show badges also list the meanings in words
 * ({@link VerdictMeanings}), so no one needs the pointer to learn them.
 */
export function VerdictBadge({ verdict, children }: { verdict: Verdict; children?: ReactNode }) {
  const words = VERDICT_WORDS[verdict];
  return (
    <span
      className="verdict-badge"
      data-verdict={verdict}
      title={words.meaning}
      style={{ borderColor: `var(--verdict-${verdict})` }}
    >
      <VerdictIcon verdict={verdict} />
      <span className="verdict-badge-label">{words.label}</span>
      {children}
    </span>
  );
}

/** What each verdict means, with its badge: folded away under "What the verdicts mean". */
export function VerdictMeanings({ verdicts }: { verdicts: readonly Verdict[] }) {
  return (
    <details className="verdict-meanings">
      <summary>What the verdicts mean</summary>
      <dl>
        {verdicts.map((verdict) => (
          <div key={verdict}>
            <dt>
              <VerdictBadge verdict={verdict} />
            </dt>
            <dd>{VERDICT_WORDS[verdict].meaning}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
