import { useState, type FormEvent } from 'react';
import { CANCELLATION_REASONS, COMMAND_STATUSES } from '../../../../domain/command.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '../../../../domain/words.ts';
import { toDateTimeLocalValue } from '../../../lib/time.ts';
import { reasonFilterApplies } from '../lib/filter-commands.ts';
import {
  HISTORY_PRESET_WORDS,
  HISTORY_PRESETS,
  type HistorySearch,
} from '../lib/history-search.ts';
import { customRangeFromInputs } from '../lib/history-view-range.ts';

interface HistoryControlsProps {
  search: HistorySearch;
  timeZone: string;
  /** The range on screen (for the custom inputs' first values), absent when refused. */
  shownRange: { startMs: number; endMs: number } | undefined;
  onChange: (next: Partial<HistorySearch>) => void;
}

/**
 * Range (presets or a custom range on the site's clock, at most 30 days, spec 8), status and
 * cancellation-reason filters. Every choice goes to the URL through `onChange`.
 */
export function HistoryControls({ search, timeZone, shownRange, onChange }: HistoryControlsProps) {
  return (
    <div className="history-controls">
      <div className="field">
        <label htmlFor="history-range">Range</label>
        <select
          id="history-range"
          value={search.range}
          onChange={(event) => {
            const range = event.target.value as HistorySearch['range'];
            if (range !== 'custom') return onChange({ range, page: 1 });
            onChange({
              range,
              page: 1,
              ...(shownRange
                ? {
                    from: new Date(shownRange.startMs).toISOString(),
                    to: new Date(shownRange.endMs).toISOString(),
                  }
                : {}),
            });
          }}
        >
          {[...HISTORY_PRESETS, 'custom' as const].map((range) => (
            <option key={range} value={range}>
              {HISTORY_PRESET_WORDS[range]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="history-status">Status</label>
        <select
          id="history-status"
          value={search.status}
          onChange={(event) =>
            onChange({ status: event.target.value as HistorySearch['status'], page: 1 })
          }
        >
          <option value="all">All statuses</option>
          {COMMAND_STATUSES.map((status) => (
            <option key={status} value={status}>
              {COMMAND_STATUS_WORDS[status]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="history-reason">Cancellation reason</label>
        <select
          id="history-reason"
          value={reasonFilterApplies(search.status) ? search.reason : 'all'}
          disabled={!reasonFilterApplies(search.status)}
          aria-describedby="history-reason-hint"
          onChange={(event) =>
            onChange({ reason: event.target.value as HistorySearch['reason'], page: 1 })
          }
        >
          <option value="all">All reasons</option>
          {CANCELLATION_REASONS.map((reason) => (
            <option key={reason} value={reason}>
              {CANCELLATION_REASON_WORDS[reason]}
            </option>
          ))}
        </select>
        <span id="history-reason-hint" className="field-hint">
          Only cancelled commands have a reason.
        </span>
      </div>
      {search.range === 'custom' ? (
        <CustomRangeForm
          key={timeZone}
          search={search}
          timeZone={timeZone}
          onApply={(from, to) => onChange({ range: 'custom', from, to, page: 1 })}
        />
      ) : null}
    </div>
  );
}

/** Two native date-time inputs on the site's clock; refuses a range over 30 days, with why. */
function CustomRangeForm(props: {
  search: HistorySearch;
  timeZone: string;
  onApply: (from: string, to: string) => void;
}) {
  const { search, timeZone } = props;
  const initial = (iso: string | undefined) =>
    iso && !Number.isNaN(Date.parse(iso)) ? toDateTimeLocalValue(iso, timeZone) : '';
  const [fromValue, setFromValue] = useState(() => initial(search.from));
  const [toValue, setToValue] = useState(() => initial(search.to));
  const [problem, setProblem] = useState<string | null>(null);
  const [notes, setNotes] = useState<string[]>([]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = customRangeFromInputs(fromValue, toValue, timeZone);
    if (!result.ok) {
      setProblem(result.problem);
      setNotes([]);
      return;
    }
    setProblem(null);
    setNotes(result.notes);
    props.onApply(result.from, result.to);
  };

  return (
    <form className="history-custom-range" onSubmit={submit} noValidate>
      <fieldset>
        <legend>Custom range, site time ({timeZone}), at most 30 days</legend>
        <div className="field">
          <label htmlFor="history-from">From</label>
          <input
            id="history-from"
            type="datetime-local"
            value={fromValue}
            onChange={(event) => setFromValue(event.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'history-range-problem' : undefined}
            required
          />
        </div>
        <div className="field">
          <label htmlFor="history-to">To</label>
          <input
            id="history-to"
            type="datetime-local"
            value={toValue}
            onChange={(event) => setToValue(event.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'history-range-problem' : undefined}
            required
          />
        </div>
        <button type="submit">Show range</button>
      </fieldset>
      {problem ? (
        <p id="history-range-problem" role="alert" className="notice notice-error">
          Range refused: {problem}
        </p>
      ) : null}
      {notes.map((note) => (
        <p key={note} className="notice notice-warning">
          {note}
        </p>
      ))}
    </form>
  );
}
