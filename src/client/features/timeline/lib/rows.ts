import type { Device, Site } from '#domain/device.ts';
import type { RowTarget } from './timeline-types.ts';

/** Heights in CSS pixels of a site header row and a device row. */
export const SITE_ROW_HEIGHT_PX = 26;
export const DEVICE_ROW_HEIGHT_PX = 34;

/** One row of the timeline: a site header or a device of that site; `y` is its top in pixels. */
export type TimelineRow =
  | { kind: 'site'; site: Site; y: number; height: number }
  | { kind: 'device'; site: Site; device: Device; y: number; height: number };

/** Rows grouped by site, and their total height. */
export interface RowLayout {
  rows: TimelineRow[];
  totalHeightPx: number;
}

/** Rows of the chosen sites, each followed by its devices matching `filter` (a matching site keeps all). */
export function buildRows(sites: readonly Site[], filter = ''): RowLayout {
  const needle = filter.trim().toLowerCase();
  const matches = (text: string) => text.toLowerCase().includes(needle);
  const rows: TimelineRow[] = [];
  let y = 0;
  for (const site of sites) {
    const siteMatches = !needle || matches(site.name) || matches(site.siteId);
    const devices = siteMatches
      ? site.devices
      : site.devices.filter((device) => matches(device.name) || matches(device.deviceId));
    if (devices.length === 0) continue;
    rows.push({ kind: 'site', site, y, height: SITE_ROW_HEIGHT_PX });
    y += SITE_ROW_HEIGHT_PX;
    for (const device of devices) {
      rows.push({ kind: 'device', site, device, y, height: DEVICE_ROW_HEIGHT_PX });
      y += DEVICE_ROW_HEIGHT_PX;
    }
  }
  return { rows, totalHeightPx: y };
}

/** Index of the row containing `y` (pixels from the top of the first row), or -1 outside. */
export function rowIndexAtY(rows: readonly TimelineRow[], y: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const row = rows[mid];
    if (!row) return -1;
    if (y < row.y) hi = mid - 1;
    else if (y >= row.y + row.height) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** Indices `[first, last]` of the rows visible between `scrollTop` and `scrollTop + heightPx`. */
export function visibleRowRange(
  rows: readonly TimelineRow[],
  scrollTopPx: number,
  heightPx: number,
): { first: number; last: number } {
  if (rows.length === 0) return { first: 0, last: -1 };
  const first = Math.max(0, rowIndexAtY(rows, Math.max(0, scrollTopPx)));
  const bottom = rowIndexAtY(rows, scrollTopPx + heightPx - 1);
  return { first, last: bottom === -1 ? rows.length - 1 : bottom };
}

/** The next device row from `index` in direction `step` (+1 down, -1 up), or `index` at an end. */
export function nextDeviceRow(rows: readonly TimelineRow[], index: number, step: 1 | -1): number {
  for (let i = index + step; i >= 0 && i < rows.length; i += step)
    if (rows[i]?.kind === 'device') return i;
  return index;
}

/** The device of row `rowIndex` with its site, or undefined for a site header or no row. */
export function rowTarget(rows: readonly TimelineRow[], rowIndex: number): RowTarget | undefined {
  const row = rows[rowIndex];
  return row?.kind === 'device' ? { site: row.site, device: row.device } : undefined;
}
