import { useState, type ReactNode } from 'react';
import { ToggleButton, ToggleButtonGroup } from 'react-aria-components';
import { Link } from 'react-router';
import { needsAttention, type Overview, type OverviewCommand } from '#domain/overview.ts';
import { FLEET_JOB_STATE_WORDS } from '#domain/words.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import {
  formatInZoneWithUtc,
  formatWindowInZoneWithUtc,
  isKnownTimeZone,
} from '#client/lib/time.ts';
import {
  activeStatusWords,
  deviceLabel,
  devicePath,
  endedWords,
  plural,
  sitePath,
  troubleWords,
} from '../lib/overview-words.ts';
import { foldBatchLines } from '../lib/batch-folds.ts';
import './overview.css';

/** A site's zone the browser can show, else UTC (the line then says UTC only). */
const zoneOf = (timeZone: string | undefined) =>
  timeZone && isKnownTimeZone(timeZone) ? timeZone : 'UTC';

type EndedFilter = 'attention' | 'cancelledByOperator';

/** The overview (docs/architecture.md, Overview): six sections of linked lines, times on the site's clock with UTC. */
export function OverviewView({ overview }: { overview: Overview }) {
  const { counts } = overview;
  const [endedFilter, setEndedFilter] = useState<EndedFilter>('attention');
  const ended = overview[endedFilter];
  return (
    <div className="overview">
      <Section
        id="executing"
        title="Executing now"
        count={counts.executing}
        shown={overview.executing.length}
        empty="No device command is in its window now."
      >
        <CommandLines
          lines={overview.executing}
          wordsOf={(line) => activeStatusWords(line, 'executing')}
        />
      </Section>
      <Section
        id="upcoming"
        title={`Starts in the next ${overview.upcomingHours} hours`}
        count={counts.upcoming}
        shown={overview.upcoming.length}
        empty={`No device command starts in the next ${overview.upcomingHours} hours.`}
      >
        <CommandLines
          lines={overview.upcoming}
          wordsOf={(line) => activeStatusWords(line, 'upcoming')}
        />
      </Section>
      <Section
        id="ended"
        title={`Needs attention in the last ${overview.recentHours} hours`}
        count={counts.attention}
        alarm={counts.attention > 0}
        listed={counts[endedFilter]}
        shown={ended.length}
        controls={
          // An operator's own cancels are listed only on request, so a refusal or a fault is not lost among them.
          <ToggleButtonGroup
            aria-label="Show"
            className="overview-filter"
            selectionMode="single"
            disallowEmptySelection
            selectedKeys={[endedFilter]}
            onSelectionChange={(keys) => {
              const [key] = keys;
              if (key === 'attention' || key === 'cancelledByOperator') setEndedFilter(key);
            }}
          >
            <ToggleButton id="attention">Needs attention ({counts.attention})</ToggleButton>
            <ToggleButton id="cancelledByOperator">
              Cancelled by an operator ({counts.cancelledByOperator})
            </ToggleButton>
          </ToggleButtonGroup>
        }
        empty={
          endedFilter === 'attention'
            ? `Nothing needs attention: no command was refused, stopped by a fault or otherwise ended against an operator's will in the last ${overview.recentHours} hours.`
            : `No operator cancelled a command in the last ${overview.recentHours} hours.`
        }
      >
        <CommandLines
          lines={ended}
          wordsOf={(line) => {
            const { what, why } = endedWords(line);
            // A refusal's words name its own device; a cancellation reason (or a command not
            // found) is the batch's words.
            return line.refusal === undefined ? `${what}, ${why.toLowerCase()}` : what;
          }}
          detailOf={(line) => {
            const { what, why } = endedWords(line);
            return (
              <>
                <strong className={needsAttention(line) ? 'overview-alarm' : undefined}>
                  {what}
                </strong>
                {line.endedAt ? ` ${formatInZoneWithUtc(line.endedAt, zoneOf(line.timeZone))}` : ''}
                : {why}
              </>
            );
          }}
        />
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
                {progress.unbound > 0
                  ? `, ${progress.unbound} no longer followed (site unbound)`
                  : ''}
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

/**
 * A command section's lines with each batch folded ({@link foldBatchLines}).
 *
 * @param wordsOf a line's state in a few words, counted on a batch's entry.
 * @param detailOf a line's own words (default: `wordsOf`).
 */
function CommandLines({
  lines,
  wordsOf,
  detailOf = wordsOf,
}: {
  lines: readonly OverviewCommand[];
  wordsOf: (line: OverviewCommand) => string;
  detailOf?: (line: OverviewCommand) => ReactNode;
}) {
  return foldBatchLines(lines).map((entry) =>
    entry.kind === 'line' ? (
      <CommandLine key={lineKey(entry.line)} line={entry.line}>
        {detailOf(entry.line)}
      </CommandLine>
    ) : (
      <BatchFold
        key={`batch ${entry.batchCommandId}`}
        batchCommandId={entry.batchCommandId}
        lines={entry.lines}
        wordsOf={wordsOf}
        detailOf={detailOf}
      />
    ),
  );
}

function BatchFold({
  batchCommandId,
  lines,
  wordsOf,
  detailOf,
}: {
  batchCommandId: string;
  lines: readonly OverviewCommand[];
  wordsOf: (line: OverviewCommand) => string;
  detailOf: (line: OverviewCommand) => ReactNode;
}) {
  const [first] = lines;
  if (!first) return null;
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(wordsOf(line), (counts.get(wordsOf(line)) ?? 0) + 1);
  const sites = new Set(lines.map((line) => line.siteName ?? 'site not bound'));
  const zone = zoneOf(first.timeZone);
  return (
    <li className="overview-line">
      <Link to={`/batches/${encodeURIComponent(batchCommandId)}`}>Batch {batchCommandId}</Link>{' '}
      <span className="secondary">
        {plural(lines.length, 'device')} · {[...sites].join(', ')}
      </span>
      <p className="overview-detail">
        {first.powerControl ? `${describePowerControl(first.powerControl)}, ` : ''}
        {first.startTime && first.endTime
          ? formatWindowInZoneWithUtc(first.startTime, first.endTime, zone)
          : 'window not known'}
      </p>
      <p className="overview-detail">
        {[...counts].map(([words, count]) => `${words}: ${count}`).join(' · ')}
      </p>
      <details className="overview-fold">
        <summary>Its {plural(lines.length, 'device')}</summary>
        <ul className="overview-lines">
          {lines.map((line) => (
            <CommandLine key={lineKey(line)} line={line}>
              {detailOf(line)}
            </CommandLine>
          ))}
        </ul>
      </details>
    </li>
  );
}

function lineKey(line: OverviewCommand): string {
  return `${line.deviceId} ${line.commandId ?? ''} ${line.ledgerEntryId ?? ''}`;
}

/**
 * One section of the overview: its title with `count`, `controls` under it (a filter), and the
 * lines or, when none is listed, `empty`.
 *
 * @param count the number in the heading (`alarm`: drawn as an alarm, something needs attention).
 * @param listed how many lines there are to list (default `count`), of which `shown` came.
 */
function Section({
  id,
  title,
  count,
  alarm = false,
  listed = count,
  shown,
  controls,
  empty,
  children,
}: {
  id: string;
  title: string;
  count: number;
  alarm?: boolean;
  listed?: number;
  shown: number;
  controls?: ReactNode;
  empty: string;
  children: ReactNode;
}) {
  const headingId = `overview-${id}`;
  return (
    <section
      className={`card overview-section${alarm ? ' is-alarm' : ''}`}
      aria-labelledby={headingId}
    >
      <h2 id={headingId}>
        {title} <span className="overview-count">{count}</span>
      </h2>
      {controls}
      {listed === 0 ? (
        <p className="empty-state">{empty}</p>
      ) : (
        <>
          <ul className="overview-lines">{children}</ul>
          {listed > shown ? (
            <p className="secondary">
              The first {shown} of {listed} are shown.
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
