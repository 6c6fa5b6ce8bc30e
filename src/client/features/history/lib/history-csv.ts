import { tz } from '@date-fns/tz';
import { format } from 'date-fns';
import Papa from 'papaparse';
import type { StatusRecord } from '#domain/command.ts';
import { POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import { CANCELLATION_REASON_WORDS } from '#domain/words.ts';

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

/** The CSV columns: IDs, status and reason, the controls (unit in the name), each time in UTC and on the site's clock, zone, operator. */
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
 * The filtered, sorted table as CSV (RFC 4180, CRLF); formula-like cells escaped, as operator names
 * come from people. `operatorOf` undefined leaves the operator column out.
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
