import { useState } from 'react';
import { Link } from 'react-router';
import type {
  FleetAttention,
  FleetEventNow,
  FleetPicture,
  FleetSiteNow,
} from '#domain/fleet-picture.ts';
import { formatClockWithUtc, formatWindowInZoneWithUtc } from '#client/lib/time.ts';
import {
  ATTENTION_REASON_WORDS,
  deliveryOf,
  devicesWords,
  directionOf,
  eventPath,
  eventTitle,
  formatCount,
  siteName,
} from '../lib/fleet-picture-words.ts';
import { devicePath, sitePath } from '../lib/overview-words.ts';
import { FIRST_ATTENTION, FIRST_EVENTS, Panel, ShowAll, zoneOr } from './fleet-panel.tsx';

/** What runs now, measured against commanded. */
export function RunningNow({
  events,
  sitesById,
  today,
}: {
  events: readonly FleetEventNow[];
  sitesById: ReadonlyMap<string, FleetSiteNow>;
  today: string;
}) {
  const [all, setAll] = useState(false);
  const shown = all ? events : events.slice(0, FIRST_EVENTS);
  return (
    <Panel id="fleet-running" title="Running now" count={events.length} className="fleet-running">
      {events.length === 0 ? (
        <p className="empty-state">
          Nothing runs now: no batch, fleet job or device command is in its window.
        </p>
      ) : (
        <ul className="overview-lines">
          {shown.map((event) => (
            <RunningLine
              key={`${event.kind} ${event.id}`}
              event={event}
              site={event.siteId ? sitesById.get(event.siteId) : undefined}
              today={today}
            />
          ))}
        </ul>
      )}
      <ShowAll
        shown={FIRST_EVENTS}
        total={events.length}
        noun="events"
        all={all}
        onToggle={() => setAll((was) => !was)}
      />
    </Panel>
  );
}

function RunningLine({
  event,
  site,
  today,
}: {
  event: FleetEventNow;
  site: FleetSiteNow | undefined;
  today: string;
}) {
  const path = eventPath(event);
  const title = eventTitle(event);
  const delivery = deliveryOf(event);
  const zone = zoneOr(site?.timeZone, 'UTC');
  const scale = Math.max(Math.abs(event.commandedW), Math.abs(event.measuredW), 1);
  const measuredDirection = directionOf(event.measuredW);
  return (
    <li className="overview-line fleet-event">
      {path ? <Link to={path}>{title}</Link> : <span>{title}</span>}{' '}
      <span className="secondary">
        {event.kind === 'fleetJob' ? '' : `${devicesWords(event.devices)}`}
        {event.siteId ? (
          <>
            {event.kind === 'fleetJob' ? '' : ' · '}
            <Link to={sitePath(event.siteId)}>{site ? siteName(site) : event.siteId}</Link>
          </>
        ) : null}
      </span>
      <p className="overview-detail">
        <span className="visually-hidden">
          {formatWindowInZoneWithUtc(event.startTime, event.endTime, zone)};{' '}
        </span>
        <span aria-hidden="true">until {formatClockWithUtc(event.endTime, zone, today)}</span>
      </p>
      <div className="fleet-delivery" aria-hidden="true">
        <span
          className={`fleet-delivery-measured is-${measuredDirection}`}
          style={{ width: `${(Math.abs(event.measuredW) / scale) * 100}%` }}
        />
        <span
          className="fleet-delivery-commanded"
          style={{ left: `${(Math.abs(event.commandedW) / scale) * 100}%` }}
        />
      </div>
      <p className="overview-detail fleet-delivery-words">
        <strong>{delivery.words}</strong>
        {' · '}
        {formatCount(event.measuredDevices)} of {devicesWords(event.devices)} measured
      </p>
    </li>
  );
}

/** The devices not following or silent, with their reason in words. */
export function Attention({
  picture,
  sitesById,
  operatorZone,
}: {
  picture: FleetPicture;
  sitesById: ReadonlyMap<string, FleetSiteNow>;
  operatorZone: string;
}) {
  const [all, setAll] = useState(false);
  const lines = picture.attention;
  const shown = all ? lines : lines.slice(0, FIRST_ATTENTION);
  return (
    <Panel
      id="fleet-attention"
      title="Not following or silent"
      count={picture.counts.attention}
      className={`fleet-attention${picture.counts.attention > 0 ? ' is-alarm' : ''}`}
    >
      {lines.length === 0 ? (
        <p className="empty-state">
          Every device reports, and none failed to follow its last command.
        </p>
      ) : (
        <ul className="overview-lines">
          {shown.map((line) => (
            <AttentionLine
              key={`${line.deviceId} ${line.reason}`}
              line={line}
              site={sitesById.get(line.siteId)}
              operatorZone={operatorZone}
              today={picture.generatedAt}
            />
          ))}
        </ul>
      )}
      {all && picture.counts.attention > lines.length ? (
        <p className="secondary">
          The first {lines.length} of {formatCount(picture.counts.attention)} are listed.
        </p>
      ) : null}
      <ShowAll
        shown={FIRST_ATTENTION}
        total={lines.length}
        noun="devices"
        all={all}
        onToggle={() => setAll((was) => !was)}
      />
    </Panel>
  );
}

function AttentionLine({
  line,
  site,
  operatorZone,
  today,
}: {
  line: FleetAttention;
  site: FleetSiteNow | undefined;
  operatorZone: string;
  today: string;
}) {
  const path = devicePath(line);
  const zone = zoneOr(site?.timeZone, operatorZone);
  const time = line.at === undefined ? undefined : formatClockWithUtc(line.at, zone, today);
  const when =
    line.reason === 'silent'
      ? time === undefined
        ? 'never measured'
        : `last measured ${time}`
      : time === undefined
        ? undefined
        : `window ended ${time}`;
  return (
    <li className="overview-line">
      {path ? <Link to={path}>{line.deviceId}</Link> : <span>{line.deviceId}</span>}{' '}
      <span className="secondary">
        <Link to={sitePath(line.siteId)}>{site ? siteName(site) : line.siteId}</Link>
      </span>
      <p className="overview-detail">
        <strong className={line.reason === 'silent' ? 'overview-trouble' : 'overview-alarm'}>
          {ATTENTION_REASON_WORDS[line.reason]}
        </strong>
        {when === undefined ? null : line.reason === 'silent' ? (
          ` · ${when}`
        ) : (
          <span className="fleet-when">{when}</span>
        )}
      </p>
    </li>
  );
}
