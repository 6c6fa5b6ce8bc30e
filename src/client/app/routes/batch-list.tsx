import { Link } from 'react-router';
import { useBatchList, useLedgerBatchList } from '../../features/batch/api/batch-records.ts';
import { BatchList } from '../../features/batch/components/batch-list.tsx';
import { mergeBatches } from '../../features/batch/lib/ledger-batches.ts';
import { Loading } from '../../components/loading.tsx';
import { useSession } from '../../features/session/api/get-session.ts';

/** `/batches`: the batches submitted, each opening its page (issue 6). */
export function BatchListRoute() {
  const batches = useBatchList();
  const ledger = useLedgerBatchList();
  const session = useSession();
  const who = session.data ? (session.data.operatorName ?? session.data.clientId) : 'you';
  return (
    <>
      <title>Batches · powerdeck</title>
      <h1>Batches</h1>
      <p className="actions">
        <Link to="/batches/new">New batch</Link>
      </p>
      {ledger.isPending ? (
        <Loading what="Loading batches…" />
      ) : (
        <BatchList
          batches={mergeBatches(batches.data ?? [], ledger.data ?? [])}
          who={who}
          ledgerProblem={ledger.isError ? ledger.error.detail : undefined}
        />
      )}
    </>
  );
}
