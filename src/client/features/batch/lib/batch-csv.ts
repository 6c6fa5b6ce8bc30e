import Papa from 'papaparse';
import type { BatchDeviceWords } from './device-actions.ts';

/** The columns of the batch page's device table, headed as the page heads them. */
const COLUMNS: readonly [keyof BatchDeviceWords, string][] = [
  ['device', 'Device'],
  ['command', 'Command'],
  ['status', 'Status'],
  ['reason', 'Reason'],
  ['outcome', 'Last cancel'],
];

/**
 * The batch page's device table as CSV (RFC 4180, CRLF): one row per device with the words the
 * page shows ({@link BatchDeviceWords}), so the file says exactly what the page says. Cells that
 * a spreadsheet would read as a formula are escaped.
 */
export function batchDevicesCsv(rows: readonly BatchDeviceWords[]): string {
  return Papa.unparse(
    {
      fields: COLUMNS.map(([, heading]) => heading),
      data: rows.map((row) => COLUMNS.map(([key]) => row[key])),
    },
    { newline: '\r\n', escapeFormulae: true },
  );
}
