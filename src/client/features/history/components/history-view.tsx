import { useMemo } from 'react';
import type { StatusRecord } from '#domain/command.ts';
import type { Device } from '#domain/device.ts';
import type { DeviceHistoryResult } from '#client/commands/api/get-command-history.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { Loading } from '#client/components/loading.tsx';
import { formatInZone, zoneLabel } from '#client/lib/time.ts';
import { operatorOf, useOperators } from '../api/get-operators.ts';
import { filterCommands, sortCommands } from '../lib/filter-commands.ts';
import { historyCsv } from '../lib/history-csv.ts';
import type { HistorySearch } from '../lib/history-search.ts';
import type { ResolvedHistoryRange } from '../lib/history-view-range.ts';
import { downloadFile } from '#client/lib/download-file.ts';
import { HistoryControls } from './history-controls.tsx';
import { HistoryTable } from './history-table.tsx';
import { OutcomesChart } from './outcomes-chart.tsx';
import { PowerChart } from './power-chart.tsx';
import './history.css';

interface HistoryViewProps {
  device: Device;
  timeZone: string;
  search: HistorySearch;
  range: ResolvedHistoryRange;
  /** The device's history over `range`; pending when the range is refused. */
  history: DeviceHistoryResult;
  onChange: (next: Partial<HistorySearch>) => void;
  onRefresh: () => void;
}

const commandsWord = (count: number) => (count === 1 ? '1 command' : `${count} commands`);

/** A device's command history; filters apply in the browser to the one fetched range, so charts, table and CSV agree. */
export function HistoryView(props: HistoryViewProps) {
  const { device, timeZone, search, range, history } = props;
  const operators = useOperators(device.deviceId);
  const all = history.data?.commands;
  const shown = useMemo(
    () => (all ? sortCommands(filterCommands(all, search), search) : []),
    [all, search],
  );
  const whoSent = operators.isSuccess
    ? (command: StatusRecord) => operatorOf(operators.data, command)
    : undefined;

  const shownRange = range.ok ? { startMs: range.startMs, endMs: range.endMs } : undefined;
  const rangeWords = shownRange
    ? `${formatInZone(shownRange.startMs, timeZone)} to ${formatInZone(shownRange.endMs, timeZone)} (${zoneLabel(timeZone)})`
    : '';
  const filePrefix = shownRange
    ? `${device.deviceId}-history-${formatInZone(shownRange.startMs, timeZone).slice(0, 10)}-${formatInZone(shownRange.endMs, timeZone).slice(0, 10)}`
    : `${device.deviceId}-history`;
  const filtered = search.status !== 'all' || search.reason !== 'all';

  let body;
  if (!range.ok)
    body = (
      <p role="alert" className="notice notice-error">
        Range refused: {range.problem} Choose a preset or a custom range of at most 30 days.
      </p>
    );
  else if (history.isPending) body = <Loading what="Loading the command history…" />;
  else if (history.isError)
    body = (
      <ErrorAlert
        error={history.error}
        what="Could not load the command history."
        onRetry={() => void history.refetch()}
      />
    );
  else if (history.data.commands.length === 0)
    body = (
      <p className="empty-state">
        <strong>No commands</strong> of {device.deviceId} have a window between {rangeWords}. Choose
        a longer range (up to 30 days) or another period; commands sent from the device page or the
        timeline appear here.
      </p>
    );
  else if (shown.length === 0)
    body = (
      <div className="empty-state">
        <p>
          <strong>No command matches the filters</strong> among the{' '}
          {commandsWord(history.data.commands.length)} between {rangeWords}.
        </p>
        <button
          type="button"
          onClick={() => props.onChange({ status: 'all', reason: 'all', page: 1 })}
        >
          Clear the filters
        </button>
      </div>
    );
  else {
    // Both charts draw the shown commands over the one range, under one subtitle.
    const chartProps = {
      commands: shown,
      startMs: range.startMs,
      endMs: range.endMs,
      timeZone,
      subtitle: `${device.deviceId}, ${rangeWords}`,
    };
    body = (
      <>
        <div className="history-charts">
          <PowerChart {...chartProps} fileStem={`${filePrefix}-power`} />
          <OutcomesChart {...chartProps} fileStem={`${filePrefix}-outcomes`} />
        </div>
        <section aria-labelledby="history-table-heading" className="stack">
          <div className="history-chart-header">
            <h2 id="history-table-heading">Commands</h2>
            <button
              type="button"
              onClick={() =>
                downloadFile(
                  historyCsv(shown, timeZone, whoSent),
                  `${filePrefix}.csv`,
                  'text/csv;charset=utf-8',
                )
              }
            >
              Export table as CSV
            </button>
          </div>
          <HistoryTable
            commands={shown}
            search={search}
            timeZone={timeZone}
            operatorOf={whoSent}
            onChange={props.onChange}
          />
        </section>
      </>
    );
  }

  return (
    <div className="stack">
      <HistoryControls
        search={search}
        timeZone={timeZone}
        shownRange={shownRange}
        onChange={props.onChange}
      />
      {range.ok ? (
        <div className="history-status-line">
          <p id="history-count" aria-live="polite">
            {history.isSuccess
              ? filtered
                ? `${commandsWord(shown.length)} match the filters, of ${commandsWord(history.data.commands.length)} between ${rangeWords}.`
                : `${commandsWord(shown.length)} between ${rangeWords}.`
              : `Range ${rangeWords}.`}
          </p>
          {search.range === 'custom' ? null : (
            <button type="button" className="small" onClick={props.onRefresh}>
              Refresh to now
            </button>
          )}
        </div>
      ) : null}
      {body}
    </div>
  );
}
