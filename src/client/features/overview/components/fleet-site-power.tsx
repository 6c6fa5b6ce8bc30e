import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import type { FleetPicture, FleetSiteNow } from '#domain/fleet-picture.ts';
import { formatMeasuredPowerW } from '#client/lib/power-control-words.ts';
import {
  formatCount,
  siteName,
  sortSites,
  type SiteSort,
  type SiteSortKey,
} from '../lib/fleet-picture-words.ts';
import { sitePath } from '../lib/overview-words.ts';
import { FIRST_SITES, Panel, ShowAll } from './fleet-panel.tsx';

const SITE_COLUMNS: readonly { key: SiteSortKey; label: string }[] = [
  { key: 'site', label: 'Site' },
  { key: 'discharging', label: 'Discharging' },
  { key: 'charging', label: 'Charging' },
  { key: 'moving', label: 'Power' },
  { key: 'soc', label: 'SoC' },
];

/** Power by site, sortable, the first {@link FIRST_SITES} and all on request. */
export function SitePower({ picture }: { picture: FleetPicture }) {
  const [sort, setSort] = useState<SiteSort>({ key: 'moving', descending: true });
  const [all, setAll] = useState(false);
  const sorted = useMemo(() => sortSites(picture.sites, sort), [picture.sites, sort]);
  const shown = all ? sorted : sorted.slice(0, FIRST_SITES);
  const scaleW = Math.max(1, ...picture.sites.map((s) => Math.max(s.dischargingW, s.chargingW)));
  const choose = (key: SiteSortKey) =>
    setSort((was) =>
      was.key === key ? { key, descending: !was.descending } : { key, descending: key !== 'site' },
    );
  return (
    <Panel
      id="fleet-sites"
      title="Power by site"
      count={picture.counts.sites}
      className="fleet-sites"
    >
      <div className="table-scroll">
        <table className="fleet-site-table">
          <caption className="visually-hidden">
            Battery power per site now, {sortWords(sort)}
          </caption>
          <thead>
            <tr>
              {SITE_COLUMNS.map(({ key, label }) => (
                <th
                  key={key}
                  scope="col"
                  className={key === 'site' ? 'col-site' : `col-${key} numeric`}
                  aria-sort={
                    sort.key === key ? (sort.descending ? 'descending' : 'ascending') : undefined
                  }
                >
                  <button type="button" className="fleet-sort" onClick={() => choose(key)}>
                    {label}
                    {key === 'moving' ? (
                      <span className="visually-hidden"> moving, charging and discharging</span>
                    ) : key === 'soc' ? (
                      <span className="visually-hidden"> (state of charge)</span>
                    ) : null}
                    <span aria-hidden="true" className="fleet-sort-mark">
                      {sort.key === key ? (sort.descending ? '▼' : '▲') : ''}
                    </span>
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((site) => (
              <SiteRow key={site.siteId} site={site} scaleW={scaleW} />
            ))}
          </tbody>
        </table>
      </div>
      {picture.counts.sites > picture.sites.length && all ? (
        <p className="secondary">
          The {picture.sites.length} sites moving most power of {formatCount(picture.counts.sites)}{' '}
          are listed.
        </p>
      ) : null}
      <ShowAll
        shown={FIRST_SITES}
        total={picture.sites.length}
        noun="sites"
        all={all}
        onToggle={() => setAll((was) => !was)}
      />
    </Panel>
  );
}

function sortWords(sort: SiteSort): string {
  const column = SITE_COLUMNS.find((c) => c.key === sort.key)?.label.toLowerCase() ?? '';
  if (sort.key === 'moving')
    return sort.descending ? 'most power moving first' : 'least power moving first';
  if (sort.key === 'site') return sort.descending ? 'by name, Z to A' : 'by name, A to Z';
  return `by ${sort.key === 'soc' ? 'state of charge' : column}, ${sort.descending ? 'most' : 'least'} first`;
}

function SiteRow({ site, scaleW }: { site: FleetSiteNow; scaleW: number }) {
  const silent = site.devices - site.reporting;
  return (
    <tr>
      <th scope="row">
        <Link to={sitePath(site.siteId)} className="fleet-site-name">
          {siteName(site)}
        </Link>
        {silent > 0 ? (
          <span className="fleet-site-silent">{formatCount(silent)} silent</span>
        ) : null}
      </th>
      <td className="numeric">
        {site.dischargingW > 0 ? formatMeasuredPowerW(site.dischargingW) : '–'}
      </td>
      <td className="numeric">{site.chargingW > 0 ? formatMeasuredPowerW(site.chargingW) : '–'}</td>
      <td aria-hidden="true">
        <div className="fleet-site-bar">
          <span className="fleet-bar-half is-charging">
            <span style={{ width: `${(site.chargingW / scaleW) * 100}%` }} />
          </span>
          <span className="fleet-bar-half is-discharging">
            <span style={{ width: `${(site.dischargingW / scaleW) * 100}%` }} />
          </span>
        </div>
      </td>
      <td className="numeric">
        {site.socPercent === undefined ? '–' : `${Math.round(site.socPercent)}%`}
      </td>
    </tr>
  );
}
