import Papa from 'papaparse';
import { z } from 'zod';
import type { Site } from '#domain/device.ts';
import { checkPlan, type PlanCheck, type PlanRowInput } from '#domain/dispatch-plan.ts';
import { POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import { parseDateTimeLocal } from '#client/lib/time.ts';

/** On whose clock a time column is written: UTC, or the clock of the device's site. */
export type ColumnClock = 'utc' | 'site';

export interface PlanFile {
  rows: PlanRowInput[];
  clocks: { start: ColumnClock; end: ColumnClock };
}

const CellSchema = z
  .union([z.string(), z.number(), z.null()])
  .transform((cell) => (cell === null ? '' : String(cell).trim()));
/** One row of a plan file, CSV or JSON: named cells; other columns are ignored. */
const FileRowSchema = z.record(z.string(), CellSchema.optional());
const JsonPlanSchema = z.array(FileRowSchema, { error: 'a JSON plan is a list of rows' });

/** Thrown when a file cannot be read as a plan at all; the message is for the operator. */
export class PlanFileError extends Error {}

/**
 * Reads a dispatch plan file (docs/fleet-dispatch.md, Dispatch plans), CSV with a header or a JSON
 * list; `_utc`/`_site` suffixes give a time column's clock; `line` is the CSV line (header = 1) or JSON position.
 *
 * @throws PlanFileError naming what is missing or unreadable.
 */
export function readPlanFile(name: string, text: string): PlanFile {
  const json = name.toLowerCase().endsWith('.json') || text.trimStart().startsWith('[');
  let records: z.output<typeof FileRowSchema>[];
  let firstLine: number;
  if (json) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new PlanFileError(`${name} is not valid JSON.`);
    }
    const parsed = JsonPlanSchema.safeParse(raw);
    if (!parsed.success)
      throw new PlanFileError(`${name} is not a list of rows: ${parsed.error.issues[0]?.message}.`);
    records = parsed.data;
    firstLine = 1;
  } else {
    const parsed = Papa.parse<Record<string, string>>(text.trim(), {
      header: true,
      skipEmptyLines: true,
      transformHeader: (header) => header.trim(),
    });
    const bad = parsed.errors.find((error) => error.type !== 'FieldMismatch');
    if (bad) throw new PlanFileError(`${name} cannot be read as CSV: ${bad.message}.`);
    records = parsed.data.map((row) => FileRowSchema.parse(row));
    firstLine = 2;
  }
  if (records.length === 0) throw new PlanFileError(`${name} has no rows.`);
  const columns = new Set(records.flatMap((record) => Object.keys(record)));
  const clockOf = (column: 'start' | 'end'): ColumnClock => {
    if (columns.has(`${column}_utc`)) return 'utc';
    if (columns.has(`${column}_site`)) return 'site';
    throw new PlanFileError(
      `${name} has no ${column} column: name it ${column}_utc (times in UTC) or ${column}_site (times on the site's clock).`,
    );
  };
  if (!columns.has('deviceId')) throw new PlanFileError(`${name} has no deviceId column.`);
  const clocks = { start: clockOf('start'), end: clockOf('end') };
  const rows = records.map((record, index) => ({
    line: index + firstLine,
    deviceId: record.deviceId ?? '',
    start: record[`start_${clocks.start}`] ?? '',
    end: record[`end_${clocks.end}`] ?? '',
    controls: Object.fromEntries(
      POWER_CONTROL_PROPERTIES.flatMap((p) => (record[p] ? [[p, record[p]]] : [])),
    ),
  }));
  return { rows, clocks };
}

/** `2026-11-24T17:00Z`, `2026-11-24 17:00:00Z`, `...+00:00`: a UTC time with its zone said. */
const UTC_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?(?:Z|\+00:?00)$/i;
/** `2026-11-24 17:00` or `2026-11-24T17:00`: a time on a wall clock. */
const WALL_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})$/;

/** Reads a time cell as epoch ms: a UTC column must say `Z`/`+00:00`; a site column is read on its clock. NaN otherwise. */
export function planTimeParser(clocks: PlanFile['clocks']) {
  return (cell: string, column: 'start' | 'end', timeZone: string): number => {
    if (clocks[column] === 'utc') {
      const match = UTC_TIME.exec(cell.trim());
      return match ? Date.parse(`${match[1]}T${match[2]}Z`) : Number.NaN;
    }
    const match = WALL_TIME.exec(cell.trim());
    const resolved = match ? parseDateTimeLocal(`${match[1]}T${match[2]}`, timeZone) : null;
    return resolved ? resolved.instant.getTime() : Number.NaN;
  };
}

/** The page's own check (`checkPlan`): sites, controls, window, the plan's other rows; the devices' commands are the server's. */
export function checkPlanFile(plan: PlanFile, sites: readonly Site[], nowMs: number): PlanCheck {
  const devices = new Map(
    sites.flatMap((site) =>
      site.devices.map((d) => [
        d.deviceId,
        { capabilities: d.capabilities, timeZone: site.timeZone },
      ]),
    ),
  );
  return checkPlan(plan.rows, {
    devices,
    commands: new Map(),
    nowMs,
    parseTime: planTimeParser(plan.clocks),
  });
}
