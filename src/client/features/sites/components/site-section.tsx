import { useState, type ReactNode } from 'react';
import type { Site } from '../../../../domain/device.ts';
import { isKnownTimeZone, utcOffsetLabel } from '../../../lib/time.ts';

interface SiteSectionProps {
  site: Site;
  onUnbind: () => void;
  children: ReactNode;
}

/** One bound site: a landmark named by its heading (name and site ID), facts, its devices. */
export function SiteSection({ site, onUnbind, children }: SiteSectionProps) {
  const headingId = `site-${site.siteId}`;
  const [renderedAtMs] = useState(() => Date.now());
  return (
    <section className="card site" aria-labelledby={headingId}>
      <div className="card-header">
        <h2 id={headingId}>
          {site.name} <span className="secondary">{site.siteId}</span>
        </h2>
        <button type="button" onClick={onUnbind}>
          Unbind
        </button>
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
          <dd>{site.devices.length}</dd>
        </div>
      </dl>
      {children}
    </section>
  );
}
