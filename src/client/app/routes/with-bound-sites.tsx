import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { Site } from '#domain/device.ts';
import { QueryView } from '../../components/query-view.tsx';
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
  return (
    <QueryView query={useSites()} loading="Loading sites…" failed="Could not load the bound sites.">
      {({ sites }) =>
        sites.length === 0 ? (
          <>
            {emptyHeading}
            <p className="empty-state">
              No site is bound yet. Bind one on the <Link to="/sites">Sites</Link> page first.
            </p>
          </>
        ) : (
          // The query's own array, so the page's memos keep their identity across renders.
          children(sites)
        )
      }
    </QueryView>
  );
}
