import { useState, type ReactNode } from 'react';
import type { Site } from '../../../../domain/device.ts';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { useUnbindSite } from '../api/unbind-site.ts';
import { SiteSection } from './site-section.tsx';

interface SiteListProps {
  sites: Site[];
  /** The devices of a site, rendered by the page (features stay independent). */
  renderDevices: (site: Site) => ReactNode;
}

/** The bound sites, each unbindable after a confirmation; an empty state says how to begin. */
export function SiteList({ sites, renderDevices }: SiteListProps) {
  const unbindSite = useUnbindSite();
  const [unbindTarget, setUnbindTarget] = useState<Site | null>(null);

  return (
    <div className="stack">
      {unbindSite.isError ? (
        <p role="alert" className="notice notice-error">
          Could not unbind {unbindSite.variables}: {unbindSite.error.detail}
        </p>
      ) : null}
      {unbindSite.isSuccess ? (
        <p role="status" className="notice notice-success">
          Unbound {unbindSite.variables}. Bind it again by its Plant ID to reach its devices.
        </p>
      ) : null}
      {sites.length === 0 ? (
        <div className="empty-state">
          <p>
            <strong>No site is bound to this client yet.</strong>
          </p>
          <p>
            Bind a site by its Plant ID (the Plant ID column of the Plant Management view in the
            vendor&apos;s app) with the field above; its devices then appear here.
          </p>
        </div>
      ) : (
        [...sites]
          .sort((a, b) => a.name.localeCompare(b.name) || a.siteId.localeCompare(b.siteId))
          .map((site) => (
            <SiteSection key={site.siteId} site={site} onUnbind={() => setUnbindTarget(site)}>
              {renderDevices(site)}
            </SiteSection>
          ))
      )}
      {unbindTarget ? (
        <ConfirmDialog
          title={`Unbind ${unbindTarget.name} (${unbindTarget.siteId})?`}
          confirmLabel="Unbind site"
          dismissLabel="Keep site"
          onDismiss={() => setUnbindTarget(null)}
          onConfirm={() => {
            unbindSite.mutate(unbindTarget.siteId);
            setUnbindTarget(null);
          }}
        >
          <p>
            powerdeck will no longer reach its {unbindTarget.devices.length} devices or their
            commands until the site is bound again.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
