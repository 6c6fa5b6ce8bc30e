import { useState, type FormEvent } from 'react';
import { WebhookRedeliverRangeSchema } from '#domain/webhooks.ts';
import { DateTimeField } from '#client/components/date-time-field.tsx';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { Field } from '#client/components/field.tsx';
import { toUtcTimestamp, zoneLabel } from '#client/lib/time.ts';
import { useRedeliverFailed } from '../api/webhook-deliveries.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const startOfMinute = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/** How many were queued again, in words. */
export function redeliveredWords(count: number): string {
  if (count === 0) return 'No failed deliveries in that range: nothing was queued again.';
  return count === 1
    ? '1 failed delivery queued again.'
    : `${count} failed deliveries queued again.`;
}

/**
 * Redelivers every failed delivery made in a range, typed on the operator's clock
 * ({@link DateTimeField}; the last day until the next minute at first); says how many were
 * queued again.
 */
export function RedeliverRange({
  endpointId,
  timeZone,
  onQueued,
}: {
  endpointId: string;
  timeZone: string;
  /** Some were queued again: the log watches for their attempts. */
  onQueued: () => void;
}) {
  // The day before the page opened, to the minute: the range asked for most after an outage.
  const [from, setFrom] = useState(() => toUtcTimestamp(startOfMinute(Date.now() - DAY_MS)));
  const [to, setTo] = useState(() => toUtcTimestamp(startOfMinute(Date.now() + MINUTE_MS)));
  const [problem, setProblem] = useState<string | null>(null);
  const redeliver = useRedeliverFailed(endpointId);
  const zone = zoneLabel(timeZone);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    redeliver.reset();
    if (!from || !to) {
      setProblem('Give both the start and the end of the range, date and time.');
      return;
    }
    const range = WebhookRedeliverRangeSchema.safeParse({ from, to });
    if (!range.success) {
      setProblem('The range must end after it starts.');
      return;
    }
    setProblem(null);
    redeliver.mutate(range.data, {
      onSuccess: (count) => {
        if (count > 0) onQueued();
      },
    });
  };

  const change = (set: (value: string) => void) => (value: string) => {
    set(value);
    setProblem(null);
    redeliver.reset();
  };

  return (
    <form
      className="stack"
      onSubmit={onSubmit}
      noValidate
      aria-labelledby="webhook-redeliver-range"
      aria-busy={redeliver.isPending}
    >
      <h4 id="webhook-redeliver-range">Redeliver failed deliveries</h4>
      <div className="inline-form">
        {(
          [
            ['webhook-range-from', 'From', from, setFrom],
            ['webhook-range-to', 'To', to, setTo],
          ] as const
        ).map(([id, label, value, set]) => (
          <Field key={id} id={id} label={label} hints={[`On the clock of ${zone}`]} labelledById>
            {(control, { labelId }) => (
              <DateTimeField
                {...control}
                aria-labelledby={labelId}
                aria-invalid={problem ? true : undefined}
                timeZone={timeZone}
                calendarLabel={`Choose ${label.toLowerCase()} date`}
                value={value}
                onChange={change(set)}
              />
            )}
          </Field>
        ))}
        <button type="submit" disabled={redeliver.isPending}>
          {redeliver.isPending ? 'Queueing…' : 'Redeliver failed deliveries'}
        </button>
      </div>
      {problem ? (
        <p role="alert" className="field-error">
          {problem}
        </p>
      ) : null}
      <p role="status">{redeliver.isSuccess ? redeliveredWords(redeliver.data) : ''}</p>
      {redeliver.isError ? (
        <ErrorAlert error={redeliver.error} what="Nothing was queued again." focusOnShow />
      ) : null}
    </form>
  );
}
