import type { ReactNode } from 'react';
import { isKnownTimeZone } from '#client/lib/time.ts';
import { formatCount } from '../lib/fleet-picture-words.ts';

/** Rows and lines shown before "Show all": the picture fits above the fold at 1280x720. */
export const FIRST_SITES = 7;
export const FIRST_EVENTS = 3;
export const FIRST_ATTENTION = 5;

/** `timeZone` when the browser knows it, else `otherwise`. */
export const zoneOr = (timeZone: string | undefined, otherwise: string) =>
  timeZone && isKnownTimeZone(timeZone) ? timeZone : otherwise;

/** A panel of the picture: its heading with a count, its content, and "Show all" past `first`. */
export function Panel({
  id,
  title,
  count,
  className,
  children,
}: {
  id: string;
  title: string;
  count?: number | undefined;
  className?: string;
  children: ReactNode;
}) {
  return (
    <section className={`card fleet-panel ${className ?? ''}`} aria-labelledby={id}>
      <h3 id={id}>
        {title}
        {count === undefined ? null : (
          <>
            {' '}
            <span className="overview-count">{formatCount(count)}</span>
          </>
        )}
      </h3>
      {children}
    </section>
  );
}

export function ShowAll({
  shown,
  total,
  noun,
  all,
  onToggle,
}: {
  shown: number;
  total: number;
  noun: string;
  all: boolean;
  onToggle: () => void;
}) {
  if (total <= shown && !all) return null;
  return (
    <button type="button" className="small fleet-show-all" onClick={onToggle} aria-expanded={all}>
      {all ? `Show the first ${shown}` : `Show all ${formatCount(total)} ${noun}`}
    </button>
  );
}
