import type { StatusRecord } from '#domain/command.ts';
import { POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '#domain/words.ts';
import {
  formatPropertyValueInWords,
  POWER_CONTROL_WORDS,
} from '#client/lib/power-control-words.ts';
import { formatInZone, formatWindowInZone, formatWindowUtc, zoneLabel } from '#client/lib/time.ts';
import type { HistorySearch, HistorySortKey } from '../lib/history-search.ts';

/** Rows per page: thousands of commands stay responsive, a page still fits a long scroll. */
export const HISTORY_PAGE_SIZE = 100;

interface HistoryTableProps {
  commands: readonly StatusRecord[];
  search: HistorySearch;
  timeZone: string;
  /** Who sent a command, when the ledger answered; `undefined` leaves the column out. */
  operatorOf: ((command: StatusRecord) => string | undefined) | undefined;
  onChange: (next: Partial<HistorySearch>) => void;
}

const SORT_WORDS: Record<HistorySortKey, string> = { start: 'Window', status: 'Status' };

/** The commands a page at a time, sortable by start and status (sort and page in the URL), window on the site's clock with UTC. */
export function HistoryTable({
  commands,
  search,
  timeZone,
  operatorOf,
  onChange,
}: HistoryTableProps) {
  const pageCount = Math.max(1, Math.ceil(commands.length / HISTORY_PAGE_SIZE));
  const page = Math.min(search.page, pageCount);
  const firstIndex = (page - 1) * HISTORY_PAGE_SIZE;
  const rows = commands.slice(firstIndex, firstIndex + HISTORY_PAGE_SIZE);

  const sortHeader = (key: HistorySortKey) => {
    const active = search.sort === key;
    const nextOrder = active && search.order === 'desc' ? 'asc' : 'desc';
    return (
      <th
        scope="col"
        aria-sort={active ? (search.order === 'asc' ? 'ascending' : 'descending') : undefined}
      >
        <button
          type="button"
          className="sort-button"
          onClick={() => onChange({ sort: key, order: nextOrder, page: 1 })}
        >
          {SORT_WORDS[key]}
          {key === 'start' ? ` (${zoneLabel(timeZone)})` : ''}
          <span aria-hidden="true">{active ? (search.order === 'asc' ? ' ▲' : ' ▼') : ' ↕'}</span>
          <span className="visually-hidden">
            , sort {nextOrder === 'asc' ? 'ascending' : 'descending'}
          </span>
        </button>
      </th>
    );
  };

  return (
    <div className="stack">
      <div className="table-scroll">
        <table className="history-table">
          <caption className="visually-hidden">
            Commands {firstIndex + 1} to {firstIndex + rows.length} of {commands.length}, sorted by{' '}
            {SORT_WORDS[search.sort].toLowerCase()}{' '}
            {search.order === 'asc' ? 'ascending' : 'descending'}
          </caption>
          <thead>
            <tr>
              {sortHeader('start')}
              <th scope="col">Power control</th>
              {sortHeader('status')}
              <th scope="col">Timestamps ({zoneLabel(timeZone)})</th>
              <th scope="col">Command ID</th>
              {operatorOf ? <th scope="col">Operator</th> : null}
            </tr>
          </thead>
          <tbody>
            {rows.map((command) => (
              <HistoryRow
                key={command.id}
                command={command}
                timeZone={timeZone}
                operator={operatorOf ? (operatorOf(command) ?? 'Not in the ledger') : undefined}
              />
            ))}
          </tbody>
        </table>
      </div>
      {pageCount > 1 ? (
        <nav className="pagination" aria-label="Pages of commands">
          <button type="button" disabled={page <= 1} onClick={() => onChange({ page: page - 1 })}>
            Previous page
          </button>
          <span>
            Page {page} of {pageCount}
          </span>
          <button
            type="button"
            disabled={page >= pageCount}
            onClick={() => onChange({ page: page + 1 })}
          >
            Next page
          </button>
        </nav>
      ) : null}
    </div>
  );
}

const TIMESTAMP_WORDS = [
  ['receivedAt', 'Received'],
  ['startedAt', 'Started'],
  ['completedAt', 'Completed'],
  ['cancelledAt', 'Cancelled'],
] as const;

function HistoryRow(props: {
  command: StatusRecord;
  timeZone: string;
  operator: string | undefined;
}) {
  const { command, timeZone } = props;
  const utcWindow = formatWindowUtc(command.startTime, command.endTime);
  return (
    <tr>
      <td title={utcWindow}>
        <time dateTime={command.startTime}>
          {formatWindowInZone(command.startTime, command.endTime, timeZone)}
        </time>
        <span className="window-utc secondary">{utcWindow}</span>
      </td>
      <td>
        <ul className="plain-list">
          {POWER_CONTROL_PROPERTIES.flatMap((property) => {
            const value = command.powerControl[property];
            return value === undefined
              ? []
              : [
                  <li key={property}>
                    {POWER_CONTROL_WORDS[property].name}:{' '}
                    {formatPropertyValueInWords(property, value)}
                  </li>,
                ];
          })}
        </ul>
      </td>
      <td>
        <span className={`status status-${command.status}`}>
          {COMMAND_STATUS_WORDS[command.status]}
        </span>
        {command.status === 'cancelled' && command.cancelReason ? (
          <span className="status-reason">{CANCELLATION_REASON_WORDS[command.cancelReason]}</span>
        ) : null}
      </td>
      <td>
        <dl className="history-timestamps">
          {TIMESTAMP_WORDS.flatMap(([name, words]) => {
            const instant = command[name];
            return instant === undefined
              ? []
              : [
                  <div key={name}>
                    <dt>{words}</dt>
                    <dd>
                      <time dateTime={instant} title={new Date(instant).toISOString()}>
                        {formatInZone(instant, timeZone)}
                      </time>
                    </dd>
                  </div>,
                ];
          })}
        </dl>
      </td>
      <td className="mono">{command.id}</td>
      {props.operator === undefined ? null : <td>{props.operator}</td>}
    </tr>
  );
}
