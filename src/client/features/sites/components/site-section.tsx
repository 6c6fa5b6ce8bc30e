import { useState, type ReactNode, type Ref } from 'react';
import type { Site } from '../../../../domain/device.ts';
import { isKnownTimeZone, utcOffsetLabel } from '../../../lib/time.ts';

interface SiteSectionProps {
  site: Site;
  /** Whether the devices are hidden (the header and facts stay). */
  folded: boolean;
  onFoldChange: (folded: boolean) => void;
  /** Absent: no Unbind button. */
  onUnbind?: (() => void) | undefined;
  /** The heading, focusable by script: the page moves focus there after a bind. */
  headingRef?: Ref<HTMLHeadingElement>;
  children: ReactNode;
}

/**
 * One bound site: a landmark named by its heading (name and site ID), facts, and its devices,
 * which fold away behind a disclosure button (`aria-expanded`) so a site of 60 devices does not
 * bury the others.
 */
export function SiteSection({
  site,
  folded,
  onFoldChange,
  onUnbind,
  headingRef,
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
            {site.timeZone}
            {isKnownTimeZone(site.timeZone) ? (
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
      </dl>
      <div id={devicesId} hidden={folded}>
        {folded ? null : children}
      </div>
    </section>
  );
}
