import { Link } from 'react-router';
import { useBatchList } from '../../features/batch/api/batch-records.ts';
import { BatchList } from '../../features/batch/components/batch-list.tsx';
import { useSession } from '../../features/session/api/get-session.ts';

/** `/batches`: the batches submitted, each opening its page (issue 6). */
export function BatchListRoute() {
  const batches = useBatchList();
  const session = useSession();
  const who = session.data ? (session.data.operatorName ?? session.data.clientId) : 'you';
  return (
    <>
      <title>Batches · powerdeck</title>
      <h1>Batches</h1>
      <p className="actions">
        <Link to="/batches/new">New batch</Link>
      </p>
      <BatchList batches={batches.data ?? []} who={who} />
    </>
  );
}
