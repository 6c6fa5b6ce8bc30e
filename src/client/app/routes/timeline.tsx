import { Link } from 'react-router';
import { Loading } from '../../components/loading.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { useSites } from '../../features/sites/api/get-sites.ts';
import { TimelinePage } from '../../features/timeline/components/timeline-page.tsx';
import { usePermission } from './use-permission.ts';

/** `/timeline`: the timeline editor over every bound site, loaded on demand. */
export function TimelineRoute() {
  const sites = useSites();
  const dispatch = usePermission('dispatch');
  return (
    <>
      <title>Timeline · powerdeck</title>
      {sites.isPending ? (
        <Loading what="Loading sites…" />
      ) : sites.isError ? (
        <ErrorAlert
          error={sites.error}
          what="Could not load the bound sites."
          onRetry={() => void sites.refetch()}
        />
      ) : sites.data.sites.length === 0 ? (
        <>
          <h1>Timeline</h1>
          <p>
            No site is bound yet. Bind one on the <Link to="/sites">Sites</Link> page first.
          </p>
        </>
      ) : (
        <TimelinePage sites={sites.data.sites} dispatchRefusal={dispatch.why} />
      )}
    </>
  );
}
