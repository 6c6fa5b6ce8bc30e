import { useEffect, useRef, useState, type FormEvent } from 'react';
import { CANCELLATION_REASONS, COMMAND_STATUSES } from '#domain/command.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '#domain/words.ts';
import { windowHints } from '#client/commands/lib/command-form-values.ts';
import { DateTimeField } from '#client/components/date-time-field.tsx';
import { Field } from '#client/components/field.tsx';
import { WordOptions } from '#client/components/word-options.tsx';
import { parseInstant, zoneLabel } from '#client/lib/time.ts';
import { reasonFilterApplies } from '../lib/filter-commands.ts';
import {
  HISTORY_PRESET_WORDS,
  HISTORY_PRESETS,
  type HistorySearch,
} from '../lib/history-search.ts';
import { customRangeFromFields } from '../lib/history-view-range.ts';

interface HistoryControlsProps {
  search: HistorySearch;
  timeZone: string;
  /** The range on screen (for the custom inputs' first values), absent when refused. */
  shownRange: { startMs: number; endMs: number } | undefined;
  onChange: (next: Partial<HistorySearch>) => void;
}

/** Range (at most 30 days: docs/upstream.md, History), status and reason filters; every choice goes to the URL via `onChange`. */
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
          <WordOptions values={[...HISTORY_PRESETS, 'custom']} words={HISTORY_PRESET_WORDS} />
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
          <WordOptions
            values={COMMAND_STATUSES}
            words={COMMAND_STATUS_WORDS}
            first={{ value: 'all', label: 'All statuses' }}
          />
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
          <WordOptions
            values={CANCELLATION_REASONS}
            words={CANCELLATION_REASON_WORDS}
            first={{ value: 'all', label: 'All reasons' }}
          />
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

/** Two {@link DateTimeField}s on the site's clock with their UTC; refuses a range over 30 days, with why. */
function CustomRangeForm(props: {
  search: HistorySearch;
  timeZone: string;
  onApply: (from: string, to: string) => void;
}) {
  const { search, timeZone } = props;
  const initial = (iso: string | undefined) => (iso && parseInstant(iso) ? iso : '');
  const [fromValue, setFromValue] = useState(() => initial(search.from));
  const [toValue, setToValue] = useState(() => initial(search.to));
  const [problem, setProblem] = useState<string | null>(null);
  const problemRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (problem) problemRef.current?.focus();
  }, [problem]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = customRangeFromFields(fromValue, toValue);
    if (!result.ok) {
      setProblem(result.problem);
      return;
    }
    setProblem(null);
    props.onApply(result.from, result.to);
  };

  const fields = [
    { name: 'from', label: 'From', value: fromValue, set: setFromValue },
    { name: 'to', label: 'To', value: toValue, set: setToValue },
  ] as const;

  return (
    <form className="history-custom-range" onSubmit={submit} noValidate>
      <fieldset>
        <legend>
          Custom range on the clock of time zone <strong>{zoneLabel(timeZone)}</strong>, at most 30
          days
        </legend>
        {fields.map(({ name, label, value, set }) => (
          <Field
            key={name}
            id={`history-${name}`}
            label={label}
            hints={windowHints(value, timeZone)}
            labelledById
          >
            {(control, { labelId }) => (
              <DateTimeField
                {...control}
                aria-labelledby={labelId}
                aria-invalid={problem ? true : undefined}
                aria-describedby={
                  [control['aria-describedby'], problem ? 'history-range-problem' : null]
                    .filter(Boolean)
                    .join(' ') || undefined
                }
                timeZone={timeZone}
                calendarLabel={`Choose ${label.toLowerCase()} date`}
                value={value}
                onChange={(next) => {
                  set(next);
                  setProblem(null);
                }}
              />
            )}
          </Field>
        ))}
        <button type="submit">Show range</button>
      </fieldset>
      {problem ? (
        <p
          id="history-range-problem"
          ref={problemRef}
          role="alert"
          tabIndex={-1}
          className="notice notice-error"
        >
          Range refused: {problem}
        </p>
      ) : null}
    </form>
  );
}
