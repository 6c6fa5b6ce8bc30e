import { Link, useLocation, useParams, useSearchParams } from 'react-router';
import { z } from 'zod';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { useBatch } from '../../features/batch/api/batch-records.ts';
import { BatchPage } from '../../features/batch/components/batch-page.tsx';
import { usePermission } from './use-permission.ts';

/** What the batch composer leaves in the history entry it opens: the batch was just sent. */
const ArrivalSchema = z.object({ justSubmitted: z.literal(true) });

/**
 * `?confirm=cancel`: opened to cancel the batch, from an undo no longer possible (the link is
 * made by `batchCancelPath`).
 */
const ConfirmSchema = z.literal('cancel');

/**
 * `/batches/:batchCommandId`: one batch as the ledger recorded it, its progress and cancel. Opened
 * by the composer right after the batch was sent, the page says so and takes focus. Opened with
 * `?confirm=cancel`, it asks to confirm the batch cancel once; the parameter then goes, so a
 * reload does not ask again.
 */
export function BatchDetailRoute() {
  const { batchCommandId = '' } = useParams();
  const justSubmitted = ArrivalSchema.safeParse(useLocation().state).success;
  const [searchParams, setSearchParams] = useSearchParams();
  const askCancel = ConfirmSchema.safeParse(searchParams.get('confirm')).success;
  const batch = useBatch(batchCommandId);
  const dispatch = usePermission('dispatch');
  const heading = (
    <h1>
      Batch <span className="mono">{batchCommandId}</span>
    </h1>
  );
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
          {heading}
          <ErrorAlert
            error={batch.error}
            what="This batch cannot be shown."
            onRetry={() => void batch.refetch()}
          />
        </>
      ) : batch.data === null ? (
        <>
          {heading}
          <div role="alert" className="notice notice-error">
            <p>
              <strong>This batch cannot be shown.</strong> The ledger of the signed-in client holds
              no batch {batchCommandId}, so its devices cannot be listed. Check the batch ID.
            </p>
          </div>
        </>
      ) : (
        <BatchPage
          record={batch.data}
          justSubmitted={justSubmitted}
          askCancel={askCancel}
          dispatchRefusal={dispatch.why}
          onCancelAsked={() => setSearchParams({}, { replace: true, state: null })}
        />
      )}
    </>
  );
}
