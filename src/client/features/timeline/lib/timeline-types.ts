import type { StatusRecord } from '#domain/command.ts';
import type { Device, Site } from '#domain/device.ts';

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

/** A window and its row: what a menu action or a confirmation is about. */
export interface WindowOfRow {
  target: RowTarget;
  record: StatusRecord;
}

/** The command form open on a row: a new window, or the replacement of `replacing`. */
export interface FormState {
  target: RowTarget;
  startMs: number;
  endMs: number;
  powerControl?: StatusRecord['powerControl'];
  replacing?: StatusRecord;
}
