import { Link } from 'react-router';
import { REGION_NAMES } from '#domain/token.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { StaleDataNotice } from '../../components/stale-data-notice.tsx';
import { useFleetPicture } from '../../features/overview/api/get-fleet-picture.ts';
import { useOverview } from '../../features/overview/api/get-overview.ts';
import { FleetPictureView } from '../../features/overview/components/fleet-picture.tsx';
import { OverviewView } from '../../features/overview/components/overview-view.tsx';
import { useSession } from '../../features/session/api/get-session.ts';
import { FAILED_REFETCH_INTERVAL_MS } from '../../lib/refetch-while-failing.ts';
import { formatUtc } from '../../lib/time.ts';

/**
 * `/overview`, the page after sign-in (docs/architecture.md, Overview): the fleet picture above
 * the fold, then the commands, batches and fleet jobs under way; follows events and polls while shown.
 */
export function OverviewRoute() {
  const region = useSession().data?.region;
  const overview = useOverview(region);
  const picture = useFleetPicture(region);
  const regionName = region ? REGION_NAMES[region] : '';
  return (
    <>
      <title>Overview · powerdeck</title>
      <h1>Overview{regionName ? `: ${regionName}` : ''}</h1>
      {picture.data === undefined ? (
        picture.isError ? (
          <ErrorAlert
            error={picture.error}
            what="Could not load the fleet picture."
            onRetry={() => void picture.refetch()}
          />
        ) : (
          <Loading what="Loading the fleet picture…" />
        )
      ) : (
        <>
          <StaleDataNotice
            query={picture}
            what="the fleet picture"
            autoRetryMs={FAILED_REFETCH_INTERVAL_MS}
          />
          <FleetPictureView picture={picture.data} />
        </>
      )}
      <p className="lead">
        Times are on each site&apos;s clock, with UTC beside them. To bind a site or find a device,
        open <Link to="/sites">Sites</Link>, or press <kbd>Ctrl</kbd>+<kbd>K</kbd> anywhere.
      </p>
      {overview.data === undefined ? (
        overview.isError ? (
          <ErrorAlert
            error={overview.error}
            what="Could not load the overview."
            onRetry={() => void overview.refetch()}
          />
        ) : (
          <Loading what="Loading the overview…" />
        )
      ) : (
        <>
          <StaleDataNotice
            query={overview}
            what="the overview"
            autoRetryMs={FAILED_REFETCH_INTERVAL_MS}
          />
          <p className="overview-as-of">
            As of {formatUtc(overview.data.generatedAt)} on the vendor&apos;s clock. Commands sent
            outside powerdeck are not shown yet.
          </p>
          <OverviewView overview={overview.data} />
        </>
      )}
    </>
  );
}
