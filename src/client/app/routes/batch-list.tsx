import { Link } from 'react-router';
import { QueryView } from '../../components/query-view.tsx';
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
      <QueryView
        query={batches}
        loading="Loading batches…"
        failed="Could not read the batches from the ledger."
      >
        {(data) => <BatchList batches={data} />}
      </QueryView>
    </>
  );
}
