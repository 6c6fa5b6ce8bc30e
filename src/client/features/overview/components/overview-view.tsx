import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { Overview, OverviewCommand } from '../../../../domain/overview.ts';
import { FLEET_JOB_STATE_WORDS } from '../../../../domain/words.ts';
import { describePowerControl } from '../../../lib/power-control-words.ts';
import {
  formatInZoneWithUtc,
  formatWindowInZoneWithUtc,
  isKnownTimeZone,
} from '../../../lib/time.ts';
import {
  activeStatusWords,
  deviceLabel,
  devicePath,
  endedWords,
  plural,
  sitePath,
  troubleWords,
} from '../lib/overview-words.ts';
import './overview.css';

/** A site's zone the browser can show, else UTC (the line then says UTC only). */
const zoneOf = (timeZone: string | undefined) =>
  timeZone && isKnownTimeZone(timeZone) ? timeZone : 'UTC';

/**
 * The overview (docs/architecture.md, Overview): six sections, each a list of lines that link to
 * the page they concern, times on the site's clock with UTC beside them, and an empty state.
 */
export function OverviewView({ overview }: { overview: Overview }) {
  const { counts } = overview;
  return (
    <div className="overview">
      <Section
        id="executing"
        title="Executing now"
        count={counts.executing}
        shown={overview.executing.length}
        empty="No device command is in its window now."
      >
        {overview.executing.map((line) => (
          <CommandLine key={lineKey(line)} line={line}>
            {activeStatusWords(line, 'executing')}
          </CommandLine>
        ))}
      </Section>
      <Section
        id="upcoming"
        title={`Starts in the next ${overview.upcomingHours} hours`}
        count={counts.upcoming}
        shown={overview.upcoming.length}
        empty={`No device command starts in the next ${overview.upcomingHours} hours.`}
      >
        {overview.upcoming.map((line) => (
          <CommandLine key={lineKey(line)} line={line}>
            {activeStatusWords(line, 'upcoming')}
          </CommandLine>
        ))}
      </Section>
      <Section
        id="ended"
        title={`Failed or cancelled in the last ${overview.recentHours} hours`}
        count={counts.ended}
        shown={overview.ended.length}
        empty={`Nothing failed or was cancelled in the last ${overview.recentHours} hours.`}
      >
        {overview.ended.map((line) => {
          const { what, why } = endedWords(line);
          return (
            <CommandLine key={lineKey(line)} line={line}>
              <strong>{what}</strong>
              {line.endedAt
                ? ` ${formatInZoneWithUtc(line.endedAt, zoneOf(line.timeZone))}`
                : ''}: {why}
            </CommandLine>
          );
        })}
      </Section>
      <Section
        id="batches"
        title="Batches under way"
        count={counts.batches}
        shown={overview.batches.length}
        empty="No batch is under way."
      >
        {overview.batches.map((batch) => (
          <li key={batch.ledgerEntryId} className="overview-line">
            <Link
              to={
                batch.batchCommandId
                  ? `/batches/${encodeURIComponent(batch.batchCommandId)}`
                  : `/batches/entry/${encodeURIComponent(batch.ledgerEntryId)}`
              }
            >
              Batch {batch.batchCommandId ?? `entry ${batch.ledgerEntryId}`}
            </Link>{' '}
            <span className="secondary">
              {batch.siteName ? `${batch.siteName} · ` : ''}
              {plural(batch.devices, 'device')}
            </span>
            <p className="overview-detail">
              {batch.powerControl ? `${describePowerControl(batch.powerControl)}, ` : ''}
              {formatWindowInZoneWithUtc(batch.startTime, batch.endTime, zoneOf(batch.timeZone))}
            </p>
            <p className="overview-detail">
              {batch.found} confirmed
              {batch.confirming > 0 ? `, ${batch.confirming} not confirmed yet` : ''}
              {batch.notFound > 0 ? `, ${batch.notFound} not found` : ''}
            </p>
          </li>
        ))}
      </Section>
      <Section
        id="fleet-jobs"
        title="Fleet jobs under way"
        count={counts.fleetJobs}
        shown={overview.fleetJobs.length}
        empty="No fleet job is under way."
      >
        {overview.fleetJobs.map((job) => {
          const { progress } = job;
          const cancelled = Object.values(progress.cancelled).reduce((a, b) => a + (b ?? 0), 0);
          return (
            <li key={job.jobId} className="overview-line">
              <Link to={`/fleet-jobs/${encodeURIComponent(job.jobId)}`}>
                Fleet job of {plural(progress.total, 'device')}
              </Link>{' '}
              <span className="secondary">
                {FLEET_JOB_STATE_WORDS[job.state]}
                {job.operatorName ? ` · by ${job.operatorName}` : ''}
              </span>
              <p className="overview-detail">
                {describePowerControl(job.command.powerControl)},{' '}
                {formatWindowInZoneWithUtc(job.command.startTime, job.command.endTime, 'UTC')}
              </p>
              <p className="overview-detail">
                {progress.sent} sent, {progress.executing} executing, {progress.completed} completed
                {cancelled > 0 ? `, ${cancelled} cancelled` : ''}
                {progress.failed > 0 ? `, ${progress.failed} failed` : ''}
              </p>
            </li>
          );
        })}
      </Section>
      <Section
        id="trouble"
        title="Offline or faulted"
        count={counts.trouble}
        shown={overview.trouble.length}
        empty="Every bound site and device was online and without fault at the last read."
      >
        {overview.trouble.map((line) => {
          const path = line.deviceId
            ? devicePath({ siteId: line.siteId, deviceId: line.deviceId })
            : sitePath(line.siteId);
          return (
            <li key={`${line.siteId} ${line.deviceId ?? ''}`} className="overview-line">
              <Link to={path ?? sitePath(line.siteId)}>
                {line.deviceId
                  ? deviceLabel({ deviceId: line.deviceId, deviceName: line.deviceName })
                  : `Site ${line.siteName} (${line.siteId})`}
              </Link>{' '}
              <span className={`overview-trouble${line.faulted ? ' is-faulted' : ''}`}>
                {troubleWords(line)}
              </span>
              {line.deviceId ? (
                <span className="secondary">
                  {' '}
                  · <Link to={sitePath(line.siteId)}>{line.siteName}</Link>
                </span>
              ) : null}
            </li>
          );
        })}
      </Section>
    </div>
  );
}

function lineKey(line: OverviewCommand): string {
  return `${line.deviceId} ${line.commandId ?? ''} ${line.ledgerEntryId ?? ''}`;
}

function Section({
  id,
  title,
  count,
  shown,
  empty,
  children,
}: {
  id: string;
  title: string;
  count: number;
  shown: number;
  empty: string;
  children: ReactNode;
}) {
  const headingId = `overview-${id}`;
  return (
    <section className="card overview-section" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {title} <span className="overview-count">{count}</span>
      </h2>
      {count === 0 ? (
        <p className="empty-state">{empty}</p>
      ) : (
        <>
          <ul className="overview-lines">{children}</ul>
          {count > shown ? (
            <p className="secondary">
              The first {shown} of {count} are shown.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}

function CommandLine({ line, children }: { line: OverviewCommand; children: ReactNode }) {
  const path = devicePath(line);
  const zone = zoneOf(line.timeZone);
  return (
    <li className="overview-line">
      {path ? <Link to={path}>{deviceLabel(line)}</Link> : <span>{deviceLabel(line)}</span>}{' '}
      <span className="secondary">
        {line.siteId && line.siteName ? (
          <Link to={sitePath(line.siteId)}>{line.siteName}</Link>
        ) : (
          'site not bound'
        )}
        {line.batchCommandId ? (
          <>
            {' · '}
            <Link to={`/batches/${encodeURIComponent(line.batchCommandId)}`}>batch</Link>
          </>
        ) : null}
        {path ? (
          <>
            {' · '}
            <Link to={`${path}/history`} aria-label={`History of ${deviceLabel(line)}`}>
              history
            </Link>
          </>
        ) : null}
      </span>
      <p className="overview-detail">
        {line.powerControl ? `${describePowerControl(line.powerControl)}, ` : ''}
        {line.startTime && line.endTime
          ? formatWindowInZoneWithUtc(line.startTime, line.endTime, zone)
          : 'window not known'}
      </p>
      <p className="overview-detail">{children}</p>
    </li>
  );
}
