import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Site } from '#domain/device.ts';
import { useUnbindSite } from '../api/unbind-site.ts';
import {
  isFoldedByDefault,
  readFoldChoices,
  writeFoldChoices,
  type FoldChoices,
} from '../lib/site-folding.ts';
import { SiteSection } from './site-section.tsx';
import { UnbindSiteDialog } from './unbind-site-dialog.tsx';
import { problemWords } from '#client/lib/problem-words.ts';

/** A request to move focus to a site's heading, e.g. right after it was bound. */
export interface SiteFocusRequest {
  siteId: string;
}

interface SiteListProps {
  /** False hides the Unbind buttons (the operator's role may not bind or unbind). Default true. */
  canUnbind?: boolean;
  clockRefusal?: string | undefined;
  sites: Site[];
  renderDevices: (site: Site) => ReactNode;
  /** When set, that site's heading takes focus once it is in the list (one request, one move). */
  focusRequest?: SiteFocusRequest | null;
}

/**
 * The bound sites, each foldable and unbindable after a confirmation listing its waiting commands;
 * after an unbind focus moves to its outcome, since the site and its button are gone.
 */
export function SiteList({
  sites,
  renderDevices,
  focusRequest,
  canUnbind = true,
  clockRefusal,
}: SiteListProps) {
  const unbindSite = useUnbindSite();
  const [unbindTarget, setUnbindTarget] = useState<Site | null>(null);
  const [foldChoices, setFoldChoices] = useState<FoldChoices>(() => readFoldChoices());
  const setFolded = (siteId: string, folded: boolean) => {
    const next = { ...foldChoices, [siteId]: folded };
    setFoldChoices(next);
    writeFoldChoices(next);
  };

  const headings = useRef(new Map<string, HTMLHeadingElement>());
  const handledRequest = useRef<SiteFocusRequest | null>(null);
  useEffect(() => {
    if (!focusRequest || handledRequest.current === focusRequest) return;
    const heading = headings.current.get(focusRequest.siteId);
    if (!heading) return;
    handledRequest.current = focusRequest;
    heading.focus();
  }, [focusRequest, sites]);

  const unbindOutcome = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (unbindSite.isSuccess) unbindOutcome.current?.focus();
  }, [unbindSite.isSuccess, unbindSite.submittedAt]);
  // Once more when the site leaves the list: the closed dialog gives focus back to the site's
  // Unbind button a frame later, and an answer faster than that frame lost focus to the page when
  // the button went with its site. Once per unbind, so a later read of the list never takes focus.
  const unbindSeenGone = useRef<number | undefined>(undefined);
  const unboundSiteListed = sites.some((site) => site.siteId === unbindSite.variables);
  useEffect(() => {
    if (!unbindSite.isSuccess || unboundSiteListed) return;
    if (unbindSeenGone.current === unbindSite.submittedAt) return;
    unbindSeenGone.current = unbindSite.submittedAt;
    unbindOutcome.current?.focus();
  }, [unbindSite.isSuccess, unbindSite.submittedAt, unboundSiteListed]);

  return (
    <div className="stack">
      {unbindSite.isError ? (
        <p role="alert" className="notice notice-error">
          Could not unbind {unbindSite.variables}: {problemWords(unbindSite.error)}
        </p>
      ) : null}
      {unbindSite.isSuccess ? (
        <p role="status" className="notice notice-success" tabIndex={-1} ref={unbindOutcome}>
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
            <SiteSection
              key={site.siteId}
              site={site}
              folded={foldChoices[site.siteId] ?? isFoldedByDefault(site.devices.length)}
              onFoldChange={(folded) => setFolded(site.siteId, folded)}
              onUnbind={canUnbind ? () => setUnbindTarget(site) : undefined}
              clockRefusal={clockRefusal}
              headingRef={(heading) => {
                if (heading) headings.current.set(site.siteId, heading);
                else headings.current.delete(site.siteId);
              }}
            >
              {renderDevices(site)}
            </SiteSection>
          ))
      )}
      {unbindTarget ? (
        <UnbindSiteDialog
          site={unbindTarget}
          onDismiss={() => setUnbindTarget(null)}
          onUnbind={() => {
            unbindSite.mutate(unbindTarget.siteId);
            setUnbindTarget(null);
          }}
        />
      ) : null}
    </div>
  );
}
