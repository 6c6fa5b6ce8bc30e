import type { UseFormRegisterReturn } from 'react-hook-form';
import { Field } from '#client/components/field.tsx';
import { EVENT_GROUPS, EVENT_TYPE_WORDS } from '../lib/webhook-words.ts';
import './webhooks.css';

/**
 * What an endpoint hears about: event types as checkboxes grouped in the operator's words, each
 * with its type name as a receiver reads it, and optional sites (Plant IDs; empty: every site).
 * Shared by the form that adds an endpoint and the endpoint's page.
 */
export function SubscriptionFields({
  idPrefix,
  events,
  sites,
  eventsError,
  sitesError,
}: {
  idPrefix: string;
  events: UseFormRegisterReturn<'eventTypes'>;
  sites: UseFormRegisterReturn<'sites'>;
  eventsError?: string | undefined;
  sitesError?: string | undefined;
}) {
  const errorId = `${idPrefix}-events-error`;
  return (
    <>
      <fieldset
        className="webhook-events"
        aria-describedby={eventsError ? errorId : undefined}
        aria-invalid={eventsError ? true : undefined}
      >
        <legend>Events</legend>
        <div className="webhook-event-groups">
          {EVENT_GROUPS.map((group) => (
            <fieldset key={group.name} className="webhook-event-group">
              <legend>{group.name}</legend>
              <ul>
                {group.types.map((type) => (
                  <li key={type}>
                    <label>
                      <input type="checkbox" value={type} {...events} /> {EVENT_TYPE_WORDS[type]}{' '}
                      <code className="webhook-event-type">{type}</code>
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          ))}
        </div>
        {eventsError ? (
          <span id={errorId} className="field-error">
            {eventsError}
          </span>
        ) : null}
      </fieldset>
      <Field
        id={`${idPrefix}-sites`}
        label="Sites (optional)"
        hints={['Plant IDs; empty: every site of the account']}
        error={sitesError}
      >
        {(control) => <input {...control} {...sites} type="text" spellCheck={false} />}
      </Field>
    </>
  );
}
