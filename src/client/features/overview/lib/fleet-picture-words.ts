import {
  SOC_BAND_COUNT,
  type FleetAttention,
  type FleetEventNow,
  type FleetPicture,
  type FleetSiteNow,
} from '#domain/fleet-picture.ts';
import { NOT_FOLLOWING_FLAG, VERDICT_WORDS } from '#domain/verdict.ts';
import { formatMeasuredPowerW } from '#client/lib/power-control-words.ts';
import { plural } from './overview-words.ts';

/** A picture whose newest sample is older than this, ms, says so: the BFF reads every few minutes. */
export const STALE_SNAPSHOT_MS = 10 * 60_000;

const COUNT = new Intl.NumberFormat('en-US');
/** `10,000`: a count of devices. */
export const formatCount = (count: number) => COUNT.format(count);
/** `1 device`, `10,000 devices`. */
export const devicesWords = (count: number) =>
  `${formatCount(count)} device${count === 1 ? '' : 's'}`;

export type PowerDirection = 'discharging' | 'charging' | 'balanced';

/** Battery power's direction in words, never a sign alone (battery power positive discharges). */
export const directionOf = (signedW: number): PowerDirection =>
  signedW > 0 ? 'discharging' : signedW < 0 ? 'charging' : 'balanced';

/** The region's battery power net of charging, W (positive discharges), and its direction. */
export function netPower(power: FleetPicture['power']): {
  watts: number;
  direction: PowerDirection;
} {
  const watts = power.dischargingW - power.chargingW;
  return { watts, direction: directionOf(watts) };
}

/** `3.42 MW discharging`, `2 kW charging`, `0 W`. */
export function signedPowerWords(signedW: number): string {
  const direction = directionOf(signedW);
  return direction === 'balanced'
    ? formatMeasuredPowerW(0)
    : `${formatMeasuredPowerW(signedW)} ${direction}`;
}

/** A band of state of charge in words: `0–10%`, `90–100%`. */
export function socBandLabel(band: number): string {
  const width = 100 / SOC_BAND_COUNT;
  return `${band * width}–${(band + 1) * width}%`;
}

/** Stored over capacity, percent rounded; undefined without capacity. */
export const storedPercent = ({ storedKwh, capacityKwh }: FleetPicture['energy']) =>
  capacityKwh > 0 ? Math.round((storedKwh / capacityKwh) * 100) : undefined;

/** The state of charge chart's text alternative: how many report, where most are, the ends. */
export function socSummary(socBands: readonly number[]): string {
  const reporting = socBands.reduce((sum, count) => sum + count, 0);
  if (reporting === 0) return 'No device reports its state of charge yet.';
  let most = 0;
  for (const [band, count] of socBands.entries()) if (count > (socBands[most] ?? 0)) most = band;
  const low = socBands[0] ?? 0;
  const high = socBands[SOC_BAND_COUNT - 1] ?? 0;
  return (
    `${devicesWords(reporting)} report their state of charge. ` +
    `Most, ${formatCount(socBands[most] ?? 0)}, are at ${socBandLabel(most)}; ` +
    `${formatCount(low)} below 10% and ${formatCount(high)} at 90% or more.`
  );
}

/** How old the newest sample is when the picture was made, ms; undefined without samples. */
export function snapshotAgeMs(picture: Pick<FleetPicture, 'generatedAt' | 'snapshotAt'>) {
  return picture.snapshotAt === undefined
    ? undefined
    : Date.parse(picture.generatedAt) - Date.parse(picture.snapshotAt);
}

/** `25 minutes`, `2 hours 5 minutes`: an age rounded down to the minute. */
export function ageWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return plural(minutes, 'minute');
  const rest = minutes % 60;
  return `${plural(Math.floor(minutes / 60), 'hour')}${rest > 0 ? ` ${plural(rest, 'minute')}` : ''}`;
}

/** Why a device needs attention, in words (docs/verification.md, Fleet picture). */
export const ATTENTION_REASON_WORDS: Record<FleetAttention['reason'], string> = {
  notFollowing: `${VERDICT_WORDS.notFollowing.label}: its power did not follow its last command`,
  repeatedlyNotFollowing: `Did not follow ${NOT_FOLLOWING_FLAG.atLeast} of its last ${NOT_FOLLOWING_FLAG.of} commands`,
  noData: `${VERDICT_WORDS.noData.label} in its last command's window`,
  silent: 'Silent',
};

/** What a running event delivers now against what it was commanded, in words and percent. */
export function deliveryOf(event: Pick<FleetEventNow, 'commandedW' | 'measuredW'>): {
  /** Measured over commanded in the commanded direction, percent rounded; undefined when nothing was commanded. */
  percent: number | undefined;
  words: string;
} {
  const { commandedW, measuredW } = event;
  const commanded = signedPowerWords(commandedW);
  if (commandedW === 0)
    return { percent: undefined, words: `${signedPowerWords(measuredW)} now; 0 W commanded` };
  const percent = Math.max(0, Math.round((measuredW / commandedW) * 100));
  const sameWay = directionOf(measuredW) === directionOf(commandedW);
  return {
    percent,
    words: sameWay
      ? `${formatMeasuredPowerW(measuredW)} of ${commanded} commanded (${percent}%)`
      : `${signedPowerWords(measuredW)} now, against ${commanded} commanded`,
  };
}

/** How a running event is named: `Batch 3R_cg…`, `Fleet job of 1,000 devices`, `Device command`. */
export function eventTitle(event: FleetEventNow): string {
  if (event.kind === 'batch') return `Batch ${event.batchCommandId ?? `entry ${event.id}`}`;
  if (event.kind === 'fleetJob') return `Fleet job of ${devicesWords(event.devices)}`;
  return 'Device command';
}

/** The page of a running event: its batch or fleet job; a single command has none here. */
export function eventPath(event: FleetEventNow): string | undefined {
  if (event.kind === 'batch')
    return event.batchCommandId
      ? `/batches/${encodeURIComponent(event.batchCommandId)}`
      : `/batches/entry/${encodeURIComponent(event.id)}`;
  if (event.kind === 'fleetJob') return `/fleet-jobs/${encodeURIComponent(event.id)}`;
  return undefined;
}

export type SiteSortKey = 'site' | 'moving' | 'discharging' | 'charging' | 'soc';
export interface SiteSort {
  key: SiteSortKey;
  descending: boolean;
}

const SITE_VALUE: Record<Exclude<SiteSortKey, 'site'>, (site: FleetSiteNow) => number> = {
  moving: (site) => site.dischargingW + site.chargingW,
  discharging: (site) => site.dischargingW,
  charging: (site) => site.chargingW,
  soc: (site) => site.socPercent ?? -1,
};

/** A site's name as listed: its name, else its ID. */
export const siteName = (site: Pick<FleetSiteNow, 'siteId' | 'siteName'>) =>
  site.siteName ?? site.siteId;

/** The sites in the chosen order; ties by name, so the order is stable between reads. */
export function sortSites(sites: readonly FleetSiteNow[], sort: SiteSort): FleetSiteNow[] {
  const byName = (a: FleetSiteNow, b: FleetSiteNow) => siteName(a).localeCompare(siteName(b));
  const sign = sort.descending ? -1 : 1;
  const { key } = sort;
  const compare =
    key === 'site'
      ? (a: FleetSiteNow, b: FleetSiteNow) => sign * byName(a, b)
      : (a: FleetSiteNow, b: FleetSiteNow) =>
          sign * (SITE_VALUE[key](a) - SITE_VALUE[key](b)) || byName(a, b);
  return [...sites].sort(compare);
}
