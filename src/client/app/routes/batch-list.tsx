import { Link } from 'react-router';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { useBatchList } from '../../features/batch/api/batch-records.ts';
import { BatchList } from '../../features/batch/components/batch-list.tsx';
import { usePermission } from './use-permission.ts';

/** `/batches`: the batches the ledger recorded, each opening its page. */
export function BatchListRoute() {
  const batches = useBatchList();
  const dispatch = usePermission('dispatch');
  return (
    <>
      <title>Batches · powerdeck</title>
      <h1>Batches</h1>
      {dispatch.allowed ? (
        <p className="actions">
          <Link to="/batches/new">New batch</Link>
        </p>
      ) : (
        <p className="notice">{dispatch.why}</p>
      )}
      {batches.isPending ? (
        <Loading what="Loading batches…" />
      ) : batches.isError ? (
        <ErrorAlert
          error={batches.error}
          what="Could not read the batches from the ledger."
          onRetry={() => void batches.refetch()}
        />
      ) : (
        <BatchList batches={batches.data} />
      )}
    </>
  );
}
