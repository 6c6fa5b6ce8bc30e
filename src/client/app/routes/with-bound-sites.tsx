import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { Site } from '#domain/device.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { useSites } from '../../features/sites/api/get-sites.ts';

/**
 * The gate of pages over the bound sites: loading, error with retry, or a pointer to Sites when none is bound; else `children`.
 *
 * @param emptyHeading shown above the pointer, for a page whose content carries its own heading.
 */
export function WithBoundSites({
  children,
  emptyHeading,
}: {
  children: (sites: readonly Site[]) => ReactNode;
  emptyHeading?: ReactNode;
}) {
  const sites = useSites();
  if (sites.isPending) return <Loading what="Loading sites…" />;
  if (sites.isError)
    return (
      <ErrorAlert
        error={sites.error}
        what="Could not load the bound sites."
        onRetry={() => void sites.refetch()}
      />
    );
  if (sites.data.sites.length === 0)
    return (
      <>
        {emptyHeading}
        <p className="empty-state">
          No site is bound yet. Bind one on the <Link to="/sites">Sites</Link> page first.
        </p>
      </>
    );
  // The query's own array, so the page's memos keep their identity across renders.
  return children(sites.data.sites);
}
