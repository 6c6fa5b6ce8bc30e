import { zodResolver } from '@hookform/resolvers/zod';
import { useState, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import type { WebhookEndpointMade } from '#domain/webhooks.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { Field } from '#client/components/field.tsx';
import { useMakeWebhookEndpoint } from '../api/webhook-endpoints.ts';
import { EndpointFormSchema, endpointRequestOf, type EndpointForm } from '../lib/endpoint-form.ts';
import { SecretOnce } from './secret-once.tsx';
import { SubscriptionFields } from './subscription-fields.tsx';

/**
 * Adds an endpoint (docs/automation.md, Webhooks): address, description, events, optional sites.
 * A refusal keeps what was typed; once added, the signing secret is shown once with a copy button
 * and focus goes to it. `onKept` is told the new endpoint once the secret was taken.
 */
export function EndpointMaker({ onKept }: { onKept?: (endpointId: string) => void }) {
  const make = useMakeWebhookEndpoint();
  const [made, setMade] = useState<WebhookEndpointMade | null>(null);
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<EndpointForm>({
    resolver: zodResolver(EndpointFormSchema),
    defaultValues: { url: '', description: '', eventTypes: [], sites: '' },
  });
  // A refusal belongs to the attempt it answered: typing again clears it.
  const onChange = () => make.reset();

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    make.reset();
    void handleSubmit((values) => {
      setMade(null);
      make.mutate(endpointRequestOf(values), {
        onSuccess: (answer) => {
          setMade(answer);
          reset();
        },
      });
    })(event);
  };

  return (
    <section className="stack" aria-labelledby="webhook-maker">
      <h2 id="webhook-maker">Add an endpoint</h2>
      <form className="stack" onSubmit={onSubmit} noValidate aria-busy={make.isPending}>
        <Field
          id="webhook-url"
          label="Address"
          hints={['Where the events are sent, such as https://example.com/powerdeck-events']}
          error={errors.url?.message}
        >
          {(control) => (
            <input
              {...control}
              {...register('url', { onChange })}
              type="url"
              inputMode="url"
              spellCheck={false}
            />
          )}
        </Field>
        <Field
          id="webhook-description"
          label="Description (optional)"
          hints={['What receives them, such as "ticketing"']}
          error={errors.description?.message}
        >
          {(control) => (
            <input {...control} {...register('description', { onChange })} type="text" />
          )}
        </Field>
        <SubscriptionFields
          idPrefix="webhook-new"
          events={register('eventTypes', { onChange })}
          sites={register('sites', { onChange })}
          eventsError={errors.eventTypes?.message}
          sitesError={errors.sites?.message}
        />
        <button type="submit" className="primary" disabled={make.isPending}>
          {make.isPending ? 'Adding…' : 'Add endpoint'}
        </button>
      </form>
      {make.isError ? (
        <ErrorAlert error={make.error} what="The endpoint was not added." focusOnShow />
      ) : null}
      {made ? (
        <SecretOnce
          secret={made.secret}
          onKept={() => {
            setMade(null);
            onKept?.(made.endpoint.id);
          }}
        >
          <p>
            Endpoint added for <strong>{made.endpoint.url}</strong>. Its receiver checks each
            delivery's <code>webhook-signature</code> with this secret.
          </p>
        </SecretOnce>
      ) : null}
    </section>
  );
}
