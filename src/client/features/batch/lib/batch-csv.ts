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

/** The batch page's device table as CSV (RFC 4180, CRLF) in the page's words; formula-like cells escaped. */
export function batchDevicesCsv(rows: readonly BatchDeviceWords[]): string {
  return Papa.unparse(
    {
      fields: COLUMNS.map(([, heading]) => heading),
      data: rows.map((row) => COLUMNS.map(([key]) => row[key])),
    },
    { newline: '\r\n', escapeFormulae: true },
  );
}
