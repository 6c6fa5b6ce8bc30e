import { useState, type ReactNode, type Ref } from 'react';
import type { Site } from '#domain/device.ts';
import { isFixedOffset, isKnownTimeZone, utcOffsetLabel, zoneLabel } from '#client/lib/time.ts';
import { SiteClockNotice } from './site-clock-notice.tsx';

interface SiteSectionProps {
  site: Site;
  /** Whether the devices are hidden (the header and facts stay). */
  folded: boolean;
  onFoldChange: (folded: boolean) => void;
  onUnbind?: (() => void) | undefined;
  /** The heading, focusable by script: the page moves focus there after a bind. */
  headingRef?: Ref<HTMLHeadingElement>;
  clockRefusal?: string | undefined;
  children: ReactNode;
}

/** One bound site as a landmark: facts, clock, and its devices behind a disclosure, so 60 devices do not bury the others. */
export function SiteSection({
  site,
  folded,
  onFoldChange,
  onUnbind,
  headingRef,
  clockRefusal,
  children,
}: SiteSectionProps) {
  const headingId = `site-${site.siteId}`;
  const devicesId = `site-${site.siteId}-devices`;
  const [renderedAtMs] = useState(() => Date.now());
  const count = site.devices.length;
  return (
    <section className="card site" aria-labelledby={headingId}>
      <div className="card-header">
        <h2 id={headingId} tabIndex={-1} ref={headingRef}>
          {site.name} <span className="secondary">{site.siteId}</span>
        </h2>
        <div className="site-actions">
          {count > 0 ? (
            <button
              type="button"
              aria-expanded={!folded}
              aria-controls={devicesId}
              onClick={() => onFoldChange(!folded)}
            >
              <span aria-hidden="true" className="disclosure-mark">
                {folded ? '▸' : '▾'}
              </span>
              {folded ? `Show ${count} device${count === 1 ? '' : 's'}` : 'Hide devices'}
            </button>
          ) : null}
          {onUnbind ? (
            <button type="button" onClick={onUnbind}>
              Unbind
            </button>
          ) : null}
        </div>
      </div>
      <dl className="facts">
        <div>
          <dt>Site ID</dt>
          <dd>{site.siteId}</dd>
        </div>
        <div>
          <dt>Time zone</dt>
          <dd>
            {zoneLabel(site.timeZone)}
            {isFixedOffset(site.timeZone) ? (
              <span className="secondary"> (fixed: no daylight saving time)</span>
            ) : isKnownTimeZone(site.timeZone) ? (
              <span className="secondary">
                {' '}
                (now {utcOffsetLabel(renderedAtMs, site.timeZone)})
              </span>
            ) : (
              <span className="secondary"> (unknown to this browser: times show in UTC)</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Devices</dt>
          <dd>{count}</dd>
        </div>
        {site.online === false || site.faulted ? (
          <div>
            <dt>State</dt>
            <dd>
              <SiteState site={site} />
            </dd>
          </div>
        ) : null}
      </dl>
      <SiteClockNotice site={site} setRefusal={clockRefusal} />
      <div id={devicesId} hidden={folded}>
        {folded ? null : children}
      </div>
    </section>
  );
}

function SiteState({ site }: { site: Site }) {
  const words = [
    site.faulted ? 'the vendor reports a fault' : undefined,
    site.online === false ? 'offline' : undefined,
  ].filter((word) => word !== undefined);
  return (
    <span className={site.faulted ? 'device-fault' : 'connection connection-offline'}>
      {site.faulted ? <span aria-hidden="true">⚠ </span> : null}
      {words.join(', ')}
    </span>
  );
}
