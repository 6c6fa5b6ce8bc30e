import { lazy, Suspense, useId, useState } from 'react';
import type { Site } from '#domain/device.ts';
import { siteClockWords } from '#client/lib/site-clock-words.ts';
import './site-clock.css';

// The dialog carries every zone of the world and the search list: loaded when first opened.
const SiteTimeZoneDialog = lazy(() =>
  import('./site-time-zone-dialog.tsx').then(({ SiteTimeZoneDialog }) => ({
    default: SiteTimeZoneDialog,
  })),
);

export interface SiteClockNoticeProps {
  site: Site;
  /** Why the operator may not set the zone, shown instead of the button. */
  setRefusal?: string | undefined;
}

/**
 * The one notice of a site's clock (docs/decisions/006, section 6) on every screen with its
 * times: a fixed offset as a warning, an inferred zone as a note, a set zone as a line. The button
 * stays the same element whatever the clock becomes, so focus returns to it after a save.
 */
export function SiteClockNotice({ site, setRefusal }: SiteClockNoticeProps) {
  const [open, setOpen] = useState(false);
  const textId = useId();
  const words = siteClockWords(site);
  const source = site.clock.source;
  return (
    <div
      className={`site-clock site-clock-${words.tone}${words.tone === 'warning' ? ' notice notice-warning' : ''}`}
      data-clock={source}
    >
      <p id={textId} className="site-clock-text">
        {words.tone === 'warning' ? (
          <span aria-hidden="true" className="site-clock-mark">
            ⚠{' '}
          </span>
        ) : null}
        {words.text}
      </p>
      {words.setBy ? (
        <details className="site-clock-details">
          <summary>Who set it</summary>
          <p>{words.setBy}</p>
        </details>
      ) : null}
      {setRefusal === undefined ? (
        <button
          type="button"
          className="small site-clock-action"
          aria-describedby={textId}
          onClick={() => setOpen(true)}
        >
          {source === 'offset' ? "Set the site's time zone" : 'Change the time zone'}
        </button>
      ) : (
        <p className="field-hint site-clock-refusal">{setRefusal}</p>
      )}
      {open ? (
        <Suspense fallback={null}>
          <SiteTimeZoneDialog site={site} onClose={() => setOpen(false)} />
        </Suspense>
      ) : null}
    </div>
  );
}
