import type { Device, Site } from '../../../../domain/device.ts';

/** What the view shows and where the data for it must come from. */
export interface TimelineViewport {
  deviceIds: string[];
  startMs: number;
  endMs: number;
}

/** The device of a row, with its site (for the site's time zone). */
export interface RowTarget {
  site: Site;
  device: Device;
}
