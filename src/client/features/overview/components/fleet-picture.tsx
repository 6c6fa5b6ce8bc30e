import { Suspense, useId, useMemo, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { FleetPicture } from '#domain/fleet-picture.ts';
import { lazyChart } from '#client/components/lazy-chart.tsx';
import {
  energyFigure,
  formatMeasuredPowerW,
  powerFigure,
} from '#client/lib/power-control-words.ts';
import { formatInZoneWithUtc, operatorTimeZone } from '#client/lib/time.ts';
import {
  ageWords,
  devicesWords,
  formatCount,
  netPower,
  snapshotAgeMs,
  socBandLabel,
  socSummary,
  STALE_SNAPSHOT_MS,
  storedPercent,
} from '../lib/fleet-picture-words.ts';
import './fleet-picture.css';
// recharts is a chunk of its own, so nothing of it reaches the sign-in page or the figures' first
// paint; it starts loading with the overview's code, while the picture's answer is on its way:
// asked for only once the answer had rendered, it held the chart a fetch and an evaluation
// behind the figures (bench/README.md, page.overview_fleet_10k_ms).
// A failed early load is asked again when the chart renders, not left an unhandled rejection;
// when that fails too, the chart's place says so (`lazyChart`).
const socChart = import('./soc-chart.tsx').catch(() => undefined);
const SocChart = lazyChart(() =>
  socChart.then((loaded) => loaded ?? import('./soc-chart.tsx')).then(({ SocChart }) => SocChart),
);

export { FIRST_ATTENTION, FIRST_EVENTS, FIRST_SITES } from './fleet-panel.tsx';
import { Panel } from './fleet-panel.tsx';
import { Attention, RunningNow } from './fleet-now-lists.tsx';
import { SitePower } from './fleet-site-power.tsx';

/**
 * The fleet now (docs/verification.md, Fleet picture): big numbers of power, devices and energy,
 * power per site, state of charge across the fleet, what runs now against what it gives, and the
 * devices that need attention. Renders in proportion to the answer (at most 100 sites and 100
 * lines), never to the devices.
 */
export function FleetPictureView({ picture }: { picture: FleetPicture }) {
  const operatorZone = operatorTimeZone();
  const sitesById = useMemo(
    () => new Map(picture.sites.map((site) => [site.siteId, site])),
    [picture.sites],
  );
  const ageMs = snapshotAgeMs(picture);
  const measured = picture.snapshotAt !== undefined && picture.devices.reporting > 0;
  return (
    <section className="fleet-picture" aria-labelledby="fleet-picture-heading">
      <div className="fleet-picture-head">
        <h2 id="fleet-picture-heading">The fleet now</h2>
        {picture.snapshotAt ? (
          <p className="fleet-as-of">
            Measured up to {formatInZoneWithUtc(picture.snapshotAt, operatorZone)}
            {operatorZone === 'UTC' ? '' : ' (your clock)'}
          </p>
        ) : null}
      </div>
      {picture.devices.total === 0 ? (
        <p className="empty-state">
          No device is bound yet: bind a site on the <Link to="/sites">Sites</Link> page and its
          batteries show here.
        </p>
      ) : !measured ? (
        <p className="empty-state">
          No measurements yet: powerdeck reads each device&apos;s latest sample every few minutes.{' '}
          {devicesWords(picture.devices.total)} bound, none reporting yet.
        </p>
      ) : (
        <>
          {ageMs !== undefined && ageMs > STALE_SNAPSHOT_MS && picture.snapshotAt ? (
            <p role="status" className="notice notice-warning fleet-stale">
              <strong>These measurements are {ageWords(ageMs)} old:</strong> the newest sample is
              from {formatInZoneWithUtc(picture.snapshotAt, operatorZone)}; powerdeck could not read
              newer ones since.
            </p>
          ) : null}
          <Figures picture={picture} />
        </>
      )}
      {picture.devices.total === 0 ? null : (
        <div className={`fleet-panels${measured ? '' : ' is-unmeasured'}`}>
          {measured ? (
            <>
              <SitePower picture={picture} />
              <SocDistribution picture={picture} />
            </>
          ) : null}
          <RunningNow events={picture.running} sitesById={sitesById} today={picture.generatedAt} />
          <Attention picture={picture} sitesById={sitesById} operatorZone={operatorZone} />
        </div>
      )}
    </section>
  );
}

function Figure({
  label,
  figure,
  unit,
  note,
  tone,
}: {
  label: string;
  figure: string;
  unit?: string;
  note?: ReactNode;
  tone?: 'discharging' | 'charging' | 'warning';
}) {
  return (
    <div className={`fleet-figure${tone ? ` is-${tone}` : ''}`}>
      <dt>{label}</dt>
      <dd className="fleet-figure-value">
        <span className="fleet-figure-number">{figure}</span>
        {unit ? <span className="fleet-figure-unit"> {unit}</span> : null}
      </dd>
      {note ? <dd className="fleet-figure-note">{note}</dd> : null}
    </div>
  );
}

function Figures({ picture }: { picture: FleetPicture }) {
  const { power, devices, energy } = picture;
  const discharging = powerFigure(power.dischargingW);
  const charging = powerFigure(power.chargingW);
  const net = netPower(power);
  const netFigure = powerFigure(net.watts);
  const stored = energyFigure(energy.storedKwh);
  const percent = storedPercent(energy);
  return (
    <dl className="fleet-figures">
      <Figure
        label="Discharging now"
        figure={discharging.figure}
        unit={discharging.unit}
        note="battery power out"
        tone="discharging"
      />
      <Figure
        label="Charging now"
        figure={charging.figure}
        unit={charging.unit}
        note="battery power in"
        tone="charging"
      />
      <Figure
        label="Net"
        figure={netFigure.figure}
        unit={net.direction === 'balanced' ? netFigure.unit : `${netFigure.unit} ${net.direction}`}
        note={`PV ${formatMeasuredPowerW(power.pvW)} · grid in ${formatMeasuredPowerW(power.gridImportW)}, out ${formatMeasuredPowerW(power.gridExportW)}`}
      />
      <Figure
        label="Devices reporting"
        figure={formatCount(devices.reporting)}
        unit={`of ${formatCount(devices.total)}`}
        note={devices.silent > 0 ? `${formatCount(devices.silent)} silent` : 'none silent'}
        {...(devices.silent > 0 ? { tone: 'warning' as const } : {})}
      />
      <Figure
        label="Stored energy"
        figure={stored.figure}
        unit={stored.unit}
        note={
          <>
            of {energyFigure(energy.capacityKwh).figure} {energyFigure(energy.capacityKwh).unit}
            {percent === undefined ? '' : ` (${percent}%)`}
            {percent === undefined ? null : (
              <span className="fleet-meter" aria-hidden="true">
                <span style={{ width: `${percent}%` }} />
              </span>
            )}
          </>
        }
      />
    </dl>
  );
}

function SocDistribution({ picture }: { picture: FleetPicture }) {
  const summaryId = useId();
  const summary = socSummary(picture.socBands);
  return (
    <Panel id="fleet-soc" title="State of charge" className="fleet-soc">
      <figure className="fleet-soc-figure">
        <Suspense fallback={<div className="fleet-soc-placeholder" aria-hidden="true" />}>
          <SocChart socBands={picture.socBands} summaryId={summaryId} />
        </Suspense>
        <figcaption id={summaryId} className="hint">
          {summary}
        </figcaption>
      </figure>
      <details className="fleet-details">
        <summary>State of charge as a table</summary>
        <table>
          <caption className="visually-hidden">
            Reporting devices per band of state of charge
          </caption>
          <thead>
            <tr>
              <th scope="col">State of charge</th>
              <th scope="col" className="numeric">
                Devices
              </th>
            </tr>
          </thead>
          <tbody>
            {picture.socBands.map((count, band) => (
              <tr key={band}>
                <th scope="row">{socBandLabel(band)}</th>
                <td className="numeric">{formatCount(count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </Panel>
  );
}
