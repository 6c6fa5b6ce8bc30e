import Papa from 'papaparse';
import type { DeviceColumns } from '#client/lib/device-columns.ts';
import type { BatchDeviceWords } from './device-actions.ts';

/** The columns of the batch page's device table, headed as the page heads them. */
const COLUMNS: readonly [keyof BatchDeviceWords, string][] = [
  ['device', 'Device'],
  ['command', 'Command'],
  ['status', 'Status'],
  ['reason', 'Reason'],
];
/** The last cancel's outcome: last, as on the page, after any added columns. */
const LAST: readonly [keyof BatchDeviceWords, string] = ['outcome', 'Last cancel'];

/**
 * The batch page's device table as CSV (RFC 4180, CRLF) in the page's words, with the `added`
 * columns (the verdicts) when given after the reason, as the page shows them; formula-like cells
 * escaped.
 */
export function batchDevicesCsv(
  rows: readonly BatchDeviceWords[],
  added?: Pick<DeviceColumns, 'csvFields' | 'csvCells'>,
): string {
  return Papa.unparse(
    {
      fields: [...COLUMNS.map(([, heading]) => heading), ...(added?.csvFields ?? []), LAST[1]],
      data: rows.map((row) => [
        ...COLUMNS.map(([key]) => row[key]),
        ...(added?.csvCells(row.device) ?? []),
        row[LAST[0]],
      ]),
    },
    { newline: '\r\n', escapeFormulae: true },
  );
}
