import type { UseQueryResult } from '@tanstack/react-query';
import { useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { z } from 'zod';
import type { Site } from '#domain/device.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { useBatch, useBatchByEntry } from '../../features/batch/api/batch-records.ts';
import { BatchPage } from '../../features/batch/components/batch-page.tsx';
import type { BatchRecord } from '../../features/batch/lib/ledger-batches.ts';
import { useSites } from '../../features/sites/api/get-sites.ts';
import { useBatchVerdicts } from '../../features/verification/api/get-event-verdicts.ts';
import {
  EventDelivery,
  verdictColumns,
} from '../../features/verification/components/event-delivery.tsx';
import { deviceHistoryPath, devicePath } from '../../lib/device-paths.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { SiteClocks, sitesOfDevices } from './site-clock.tsx';
import { usePermission } from './use-permission.ts';
import { Breadcrumb } from '../../components/breadcrumb.tsx';

/** What the batch composer leaves in the history entry it opens: the batch was just sent. */
const ArrivalSchema = z.object({ justSubmitted: z.literal(true) });

/** `?confirm=cancel` (made by `batchCancelPath`): opened to cancel the batch. */
const ConfirmSchema = z.literal('cancel');

/** The batch on its one site's clock as it is now (a zone set since shows at once), else the ledger's zone. */
function onSiteClock(record: BatchRecord, sites: readonly Site[]): BatchRecord {
  const [only, ...others] = sites;
  if (!only || others.length > 0) return record;
  return { ...record, timeZone: only.timeZone, timeZoneRecorded: true };
}

/**
 * `/batches/:batchCommandId` (or `/batches/entry/:entryId` for a batch without an ID): one batch,
 * its progress and cancel. `?confirm=cancel` asks once, then is removed so a reload does not ask again.
 */
export function BatchDetailRoute() {
  const { batchCommandId, entryId } = useParams();
  return entryId !== undefined ? (
    <ByEntry entryId={entryId} />
  ) : (
    <ById batchCommandId={batchCommandId ?? ''} />
  );
}

function ById({ batchCommandId }: { batchCommandId: string }) {
  return <BatchDetail name={batchCommandId} batch={useBatch(batchCommandId)} />;
}

function ByEntry({ entryId }: { entryId: string }) {
  return <BatchDetail name={`entry ${entryId}`} batch={useBatchByEntry(entryId)} />;
}

function BatchDetail({
  name,
  batch,
}: {
  name: string;
  batch: UseQueryResult<BatchRecord | null, ApiError>;
}) {
  const justSubmitted = ArrivalSchema.safeParse(useLocation().state).success;
  const [searchParams, setSearchParams] = useSearchParams();
  const askCancel = ConfirmSchema.safeParse(searchParams.get('confirm')).success;
  const dispatch = usePermission('dispatch');
  const sites = useSites();
  const navigate = useNavigate();
  const verdicts = useBatchVerdicts(batch.data?.batchCommandId);
  const shown = batch.data
    ? onSiteClock(batch.data, sitesOfDevices(sites.data?.sites, batch.data.deviceIds))
    : undefined;
  const heading = (
    <h1>
      Batch <span className="mono">{name}</span>
    </h1>
  );
  const siteOf = (deviceId: string) =>
    sites.data?.sites.find((site) => site.devices.some((d) => d.deviceId === deviceId));
  return (
    <>
      <title>{`Batch ${name} · powerdeck`}</title>
      <Breadcrumb trail={[{ label: 'Batches', to: '/batches' }]} current={name} />
      {batch.isPending && batch.fetchStatus !== 'idle' ? (
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
      ) : !batch.data ? (
        <>
          {heading}
          <div role="alert" className="notice notice-error">
            <p>
              <strong>This batch cannot be shown.</strong> The ledger of the signed-in client holds
              no batch {name}, so its devices cannot be listed. Check the batch ID.
            </p>
          </div>
        </>
      ) : (
        <BatchPage
          record={shown ?? batch.data}
          delivery={
            batch.data.batchCommandId ? (
              <EventDelivery
                query={verdicts}
                what="batch"
                timeZone={(shown ?? batch.data).timeZone}
                windowEndMs={Date.parse(batch.data.command.endTime)}
              />
            ) : null
          }
          addedColumns={verdictColumns(verdicts.data)}
          justSubmitted={justSubmitted}
          askCancel={askCancel}
          dispatchRefusal={dispatch.why}
          onCancelAsked={() => setSearchParams({}, { replace: true, state: null })}
          clockNotice={
            <SiteClocks sites={sitesOfDevices(sites.data?.sites, batch.data.deviceIds)} />
          }
          historyPathOf={(deviceId) => {
            const site = siteOf(deviceId);
            return site ? deviceHistoryPath(site.siteId, deviceId) : undefined;
          }}
          devicePathOf={(deviceId) => {
            const site = siteOf(deviceId);
            return site ? devicePath(site.siteId, deviceId) : undefined;
          }}
          onResend={(deviceIds, command) =>
            void navigate('/batches/new', {
              state: {
                resend: {
                  from: batch.data?.batchCommandId
                    ? `batch ${batch.data.batchCommandId}`
                    : 'this batch',
                  deviceIds,
                  command,
                },
              },
            })
          }
        />
      )}
    </>
  );
}
