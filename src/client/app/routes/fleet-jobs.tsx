import { useQuery } from '@tanstack/react-query';
import { useMemo, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Site } from '#domain/device.ts';
import type { FleetJob } from '#domain/fleet-job.ts';
import {
  FLEET_JOB_POLL_MS,
  fleetJobQueryOptions,
  useFleetJobs,
} from '../../commands/api/fleet-jobs.ts';
import { QueryView } from '../../components/query-view.tsx';
import { FleetJobForm } from '../../features/fleet/components/fleet-job-form.tsx';
import { FleetJobList } from '../../features/fleet/components/fleet-job-list.tsx';
import { FleetJobView } from '../../features/fleet/components/fleet-job-view.tsx';
import { FleetPlanUpload } from '../../features/fleet/components/fleet-plan-upload.tsx';
import { fleetJobRefetchMs } from '../../features/fleet/lib/fleet-confirmation.ts';
import { useSites } from '../../features/sites/api/get-sites.ts';
import { useFleetJobVerdicts } from '../../features/verification/api/get-event-verdicts.ts';
import {
  EventDelivery,
  verdictColumns,
} from '../../features/verification/components/event-delivery.tsx';
import { TimelinePreview } from '../../features/timeline/components/timeline-preview.tsx';
import { DEVICE_ROW_HEIGHT_PX, SITE_ROW_HEIGHT_PX } from '../../features/timeline/lib/rows.ts';
import { AXIS_HEIGHT_PX } from '../../features/timeline/lib/draw.ts';
import type { CheckedPlanRow } from '../../features/fleet/components/fleet-plan-upload.tsx';
import { planGhosts } from './plan-ghosts.ts';
import { SiteClocks, sitesOfDevices } from './site-clock.tsx';
import { usePermission } from './use-permission.ts';
import { WithBoundSites } from './with-bound-sites.tsx';
import { Breadcrumb } from '../../components/breadcrumb.tsx';

/** `/fleet-jobs`: the client's fleet jobs, each opening its page. */
export function FleetJobListRoute() {
  const jobs = useFleetJobs();
  const dispatch = usePermission('dispatch');
  return (
    <>
      <title>Fleet jobs · powerdeck</title>
      <h1>Fleet jobs</h1>
      <p className="lead">
        One command for many devices, sent in paced batches of at most 50 by the server, which goes
        on when this page is closed.
        {dispatch.allowed ? (
          <>
            {' '}
            <Link to="/fleet-jobs/new">New fleet job</Link> ·{' '}
            <Link to="/fleet-jobs/plan">Send a dispatch plan</Link>
          </>
        ) : null}
      </p>
      {dispatch.allowed ? null : <p className="notice">{dispatch.why}</p>}
      <QueryView query={jobs} loading="Loading fleet jobs…" failed="Could not read the fleet jobs.">
        {(data) => <FleetJobList jobs={data} />}
      </QueryView>
    </>
  );
}

/** A dispatching page: `children` over the bound sites for an operator who may dispatch; a viewer is told why not. */
function DispatchPage(props: {
  title: string;
  children: (sites: readonly Site[], openJob: (jobId: string) => void) => ReactNode;
}) {
  const navigate = useNavigate();
  const dispatch = usePermission('dispatch');
  const openJob = (jobId: string) => void navigate(`/fleet-jobs/${jobId}`);
  return (
    <>
      <title>{`${props.title} · powerdeck`}</title>
      <h1>{props.title}</h1>
      <p className="lead">
        <Link to="/fleet-jobs">All fleet jobs</Link>
      </p>
      {dispatch.allowed ? (
        <WithBoundSites>{(sites) => props.children(sites, openJob)}</WithBoundSites>
      ) : (
        <p className="notice">{dispatch.why}</p>
      )}
    </>
  );
}

/** `/fleet-jobs/new`: the fleet job form over the bound sites; a started job opens its page. */
export function FleetJobNewRoute() {
  return (
    <DispatchPage title="New fleet job">
      {(sites, openJob) => <FleetJobForm sites={sites} onCreated={openJob} />}
    </DispatchPage>
  );
}

/** `/fleet-jobs/plan`: a dispatch plan from a file, checked, then sent as one fleet job. */
export function FleetPlanRoute() {
  return (
    <DispatchPage title="Dispatch plan">
      {(sites, openJob) => (
        <FleetPlanUpload
          sites={sites}
          onCreated={openJob}
          preview={(rows) => <PlanTimeline rows={rows} sites={sites} />}
        />
      )}
    </DispatchPage>
  );
}

/** Tallest the plan's timeline grows before it scrolls, in CSS pixels. */
const PLAN_TIMELINE_MAX_HEIGHT_PX = 420;

/** A checked plan on the timeline: each row as a ghost bar beside the devices' commands, so overlaps show before sending. */
function PlanTimeline({
  rows,
  sites,
}: {
  rows: readonly CheckedPlanRow[];
  sites: readonly Site[];
}) {
  const plan = useMemo(() => planGhosts(rows, sites), [rows, sites]);
  if (plan.sites.length === 0) return null;
  const rowsHeightPx =
    plan.sites.length * SITE_ROW_HEIGHT_PX + plan.byDevice.size * DEVICE_ROW_HEIGHT_PX;
  return (
    <section aria-labelledby="plan-timeline-heading" className="plan-timeline">
      <h3 id="plan-timeline-heading">The plan on the timeline</h3>
      <p className="hint">
        Each row of the plan is a dashed bar under the commands its device already holds; refused
        rows are crossed out in red. Hover a bar, or move to it with the arrow keys, for its check.
      </p>
      <TimelinePreview
        sites={plan.sites}
        ghostsByDevice={plan.byDevice}
        firstView={plan.firstView}
        heightPx={Math.min(PLAN_TIMELINE_MAX_HEIGHT_PX, rowsHeightPx + AXIS_HEIGHT_PX + 2)}
      />
    </section>
  );
}

function jobTimeZone(job: FleetJob, sites: readonly Site[] | undefined): string {
  const zoneOf = new Map(
    (sites ?? []).flatMap((site) => site.devices.map((d) => [d.deviceId, site.timeZone])),
  );
  const zones = new Set(job.batches.flatMap((b) => b.devices.map((d) => zoneOf.get(d.deviceId))));
  const [zone] = [...zones];
  return zones.size === 1 && zone ? zone : 'UTC';
}

/** When the job's last window ends, epoch ms: a dispatch plan's batches carry commands of their own. */
function lastWindowEndMs(job: FleetJob): number {
  return Math.max(
    Date.parse(job.command.endTime),
    ...job.batches.map((batch) => (batch.command ? Date.parse(batch.command.endTime) : 0)),
  );
}

/** `/fleet-jobs/:jobId`: one job, polled while it sends or cancels and while a device is unconfirmed. */
export function FleetJobDetailRoute() {
  const { jobId = '' } = useParams();
  const job = useQuery({
    ...fleetJobQueryOptions(jobId),
    refetchInterval: (query) =>
      fleetJobRefetchMs(query.state.data, query.state.dataUpdatedAt, FLEET_JOB_POLL_MS),
  });
  const sites = useSites();
  const verdicts = useFleetJobVerdicts(jobId);
  const dispatch = usePermission('dispatch');
  const navigate = useNavigate();
  return (
    <>
      <title>{`Fleet job ${jobId.slice(0, 8)} · powerdeck`}</title>
      <Breadcrumb
        trail={[{ label: 'Fleet jobs', to: '/fleet-jobs' }]}
        current={jobId.slice(0, 8)}
      />
      <h1>
        Fleet job <span className="mono">{jobId.slice(0, 8)}</span>
      </h1>
      <QueryView
        query={job}
        loading="Loading the fleet job…"
        failed="This fleet job cannot be shown."
      >
        {(data) => (
          <FleetJobView
            job={data}
            readAtMs={job.dataUpdatedAt}
            onResend={(deviceIds, command) =>
              void navigate('/batches/new', {
                state: { resend: { from: `fleet job ${jobId.slice(0, 8)}`, deviceIds, command } },
              })
            }
            {...(dispatch.allowed ? {} : { controlRefusal: dispatch.why })}
            timeZone={jobTimeZone(data, sites.data?.sites)}
            delivery={
              <EventDelivery
                query={verdicts}
                what="fleet job"
                timeZone={jobTimeZone(data, sites.data?.sites)}
                windowEndMs={lastWindowEndMs(data)}
              />
            }
            addedColumns={verdictColumns(verdicts.data)}
            clockNotice={
              <SiteClocks
                sites={sitesOfDevices(
                  sites.data?.sites,
                  data.batches.flatMap((b) => b.devices.map((d) => d.deviceId)),
                )}
              />
            }
          />
        )}
      </QueryView>
    </>
  );
}
