import { tz } from '@date-fns/tz';
import { format } from 'date-fns';
import Papa from 'papaparse';
import type { StatusRecord } from '../../../../domain/command.ts';
import { POWER_CONTROL_PROPERTIES } from '../../../../domain/power-control.ts';
import { CANCELLATION_REASON_WORDS } from '../../../../domain/words.ts';

/** `2026-11-21T11:30:00+10:30`: an instant on the site's clock, with its offset (ISO 8601). */
export function formatSiteIso(instant: string, timeZone: string): string {
  return format(new Date(instant), "yyyy-MM-dd'T'HH:mm:ssxxx", { in: tz(timeZone) });
}

const TIMESTAMPS = [
  'startTime',
  'endTime',
  'receivedAt',
  'startedAt',
  'completedAt',
  'cancelledAt',
] as const;

/**
 * The CSV columns, in order: IDs, status and cancellation reason (code and words), the five
 * control values (their names carry the unit), each timestamp twice (UTC ISO 8601 as the wire
 * carries it, then the site's wall clock with its offset), the site's time zone, and the
 * operator when the ledger is known.
 */
export function historyCsvFields(withOperator: boolean): string[] {
  return [
    'commandId',
    'deviceId',
    'batchCommandId',
    'status',
    'cancelReason',
    'cancelReasonWords',
    ...POWER_CONTROL_PROPERTIES,
    ...TIMESTAMPS.flatMap((name) => [`${name}Utc`, `${name}Site`]),
    'siteTimeZone',
    ...(withOperator ? ['operator'] : []),
  ];
}

/**
 * The filtered, sorted table as CSV (RFC 4180, CRLF line ends, a header row), one row per
 * command in the order given. Absent values are empty cells. Cells that a spreadsheet would
 * read as a formula are escaped (papaparse `escapeFormulae`), since operator names come from
 * people. `operatorOf` says who sent a command; pass `undefined` when the ledger did not answer
 * and the column is left out.
 */
export function historyCsv(
  commands: readonly StatusRecord[],
  timeZone: string,
  operatorOf: ((command: StatusRecord) => string | undefined) | undefined,
): string {
  const fields = historyCsvFields(operatorOf !== undefined);
  const data = commands.map((command) => {
    const row: Record<string, string | number> = {
      commandId: command.id,
      deviceId: command.deviceId,
      batchCommandId: command.batchCommandId ?? '',
      status: command.status,
      cancelReason: command.cancelReason ?? '',
      cancelReasonWords: command.cancelReason
        ? CANCELLATION_REASON_WORDS[command.cancelReason]
        : '',
      siteTimeZone: timeZone,
    };
    for (const property of POWER_CONTROL_PROPERTIES)
      row[property] = command.powerControl[property] ?? '';
    for (const name of TIMESTAMPS) {
      const instant = command[name];
      row[`${name}Utc`] = instant === undefined ? '' : new Date(instant).toISOString();
      row[`${name}Site`] = instant === undefined ? '' : formatSiteIso(instant, timeZone);
    }
    if (operatorOf) row.operator = operatorOf(command) ?? '';
    return row;
  });
  return Papa.unparse({ fields, data }, { newline: '\r\n', escapeFormulae: true });
}
