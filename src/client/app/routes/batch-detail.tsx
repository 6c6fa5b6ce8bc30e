import { Link, useParams } from 'react-router';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { useBatchRecord } from '../../features/batch/api/batch-records.ts';
import { BatchPage } from '../../features/batch/components/batch-page.tsx';

/** `/batches/:batchCommandId`: one batch's progress, per-device table and cancel (issue 6). */
export function BatchDetailRoute() {
  const { batchCommandId = '' } = useParams();
  const batch = useBatchRecord(batchCommandId);
  return (
    <>
      <title>{`Batch ${batchCommandId} · powerdeck`}</title>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link to="/batches">Batches</Link>
          </li>
          <li aria-current="page">{batchCommandId}</li>
        </ol>
      </nav>
      {batch.isPending ? (
        <Loading what="Loading the batch…" />
      ) : batch.isError ? (
        <>
          <h1>
            Batch <span className="mono">{batchCommandId}</span>
          </h1>
          <ErrorAlert error={batch.error} what="This batch cannot be shown." />
        </>
      ) : (
        <BatchPage record={batch.data} />
      )}
    </>
  );
}
