import { Link, useNavigate } from 'react-router';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { BatchComposer } from '../../features/batch/components/batch-composer.tsx';
import { useSites } from '../../features/sites/api/get-sites.ts';
import { usePermission } from './use-permission.ts';

/**
 * `/batches/new`: the batch composer over the devices of every bound site; an accepted batch
 * opens its page, which reads it from the ledger.
 */
export function BatchNewRoute() {
  const sites = useSites();
  const navigate = useNavigate();
  const dispatch = usePermission('dispatch');
  return (
    <>
      <title>New batch · powerdeck</title>
      <h1>New batch</h1>
      <p className="lead">
        One command for up to 50 devices. Each device gets its own device command; see them on the
        batch page after submitting. <Link to="/batches">All batches</Link>
      </p>
      {sites.isPending ? (
        <Loading what="Loading sites…" />
      ) : sites.isError ? (
        <ErrorAlert
          error={sites.error}
          what="Could not load the bound sites."
          onRetry={() => void sites.refetch()}
        />
      ) : sites.data.sites.length === 0 ? (
        <p className="empty-state">
          No site is bound yet. Bind one on the <Link to="/sites">Sites</Link> page first.
        </p>
      ) : !dispatch.allowed ? (
        <p className="notice">{dispatch.why}</p>
      ) : (
        <BatchComposer
          sites={sites.data.sites}
          onSubmitted={(batchCommandId) =>
            void navigate(`/batches/${encodeURIComponent(batchCommandId)}`, {
              state: { justSubmitted: true },
            })
          }
        />
      )}
    </>
  );
}
