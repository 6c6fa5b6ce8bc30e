import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import type { WebhookEndpoint, WebhookEndpointMade } from '#domain/webhooks.ts';
import { ConfirmDialog } from '#client/components/confirm-dialog.tsx';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { QueryView } from '#client/components/query-view.tsx';
import { formatInZoneWithUtc } from '#client/lib/time.ts';
import {
  useChangeWebhookEndpoint,
  useDeleteWebhookEndpoint,
  useRotateWebhookSecret,
  useSendWebhookTest,
  useWebhookEndpoint,
} from '../api/webhook-endpoints.ts';
import { siteIdsOfLine } from '#client/lib/site-id-line.ts';
import { SubscriptionFormSchema, type SubscriptionForm } from '../lib/endpoint-form.ts';
import { endpointSitesWords, endpointStateWords } from '../lib/webhook-words.ts';
import { DeliveryLog } from './delivery-log.tsx';
import { SecretOnce } from './secret-once.tsx';
import { SubscriptionFields } from './subscription-fields.tsx';

interface EndpointPanelProps {
  endpointId: string;
  /** The operator's clock: times are on it, with UTC beside. */
  timeZone: string;
  /** The endpoint was deleted: the page goes back to the list. */
  onDeleted: () => void;
}

/**
 * One endpoint: what it hears about (changeable), turn off or on, rotate its secret, send a test
 * event, delete, and its delivery log. Its heading takes focus when it opens.
 */
export function EndpointPanel({ endpointId, timeZone, onDeleted }: EndpointPanelProps) {
  return (
    <QueryView
      query={useWebhookEndpoint(endpointId)}
      loading="Loading the endpoint…"
      failed="Could not read the endpoint."
    >
      {(endpoint) => (
        <EndpointDetails
          key={endpoint.id}
          endpoint={endpoint}
          timeZone={timeZone}
          onDeleted={onDeleted}
        />
      )}
    </QueryView>
  );
}

type Asked = 'rotate' | 'delete' | null;

function EndpointDetails({
  endpoint,
  timeZone,
  onDeleted,
}: {
  endpoint: WebhookEndpoint;
  timeZone: string;
  onDeleted: () => void;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const change = useChangeWebhookEndpoint(endpoint.id);
  const rotate = useRotateWebhookSecret(endpoint.id);
  const test = useSendWebhookTest(endpoint.id);
  const remove = useDeleteWebhookEndpoint(endpoint.id);
  const [asked, setAsked] = useState<Asked>(null);
  const [rotated, setRotated] = useState<WebhookEndpointMade | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  // When a test event was queued: the log is read again until it shows.
  const [testSentAtMs, setTestSentAtMs] = useState<number | null>(null);
  const resetAll = () => {
    change.reset();
    rotate.reset();
    test.reset();
    remove.reset();
    setSaid(null);
  };

  const toggle = () => {
    resetAll();
    const enabled = !endpoint.enabled;
    change.mutate(
      { enabled },
      {
        onSuccess: () =>
          setSaid(
            enabled
              ? 'Turned on: events are sent to it again.'
              : 'Turned off: nothing is sent to it until it is turned on again.',
          ),
      },
    );
  };

  return (
    <section className="stack webhook-endpoint" aria-labelledby="webhook-endpoint-heading">
      <h2 id="webhook-endpoint-heading" ref={headingRef} tabIndex={-1}>
        Endpoint <span className="webhook-url">{endpoint.url}</span>
      </h2>
      <dl className="facts">
        {endpoint.description ? (
          <>
            <dt>Description</dt>
            <dd>{endpoint.description}</dd>
          </>
        ) : null}
        <dt>State</dt>
        <dd>
          {endpointStateWords(endpoint)}
          {!endpoint.enabled && endpoint.disabledAt
            ? `, ${formatInZoneWithUtc(endpoint.disabledAt, timeZone)}`
            : ''}
        </dd>
        <dt>Sites</dt>
        <dd>{endpointSitesWords(endpoint.siteIds)}</dd>
        <dt>Added</dt>
        <dd>
          {formatInZoneWithUtc(endpoint.createdAt, timeZone)} by {endpoint.madeBy}
        </dd>
        {endpoint.previousSecretSignsUntil ? (
          <>
            <dt>Previous secret</dt>
            <dd>
              still signs until {formatInZoneWithUtc(endpoint.previousSecretSignsUntil, timeZone)}
            </dd>
          </>
        ) : null}
      </dl>

      <div className="actions" role="group" aria-label="Endpoint actions">
        <button type="button" onClick={toggle} disabled={change.isPending}>
          {endpoint.enabled ? 'Turn off' : 'Turn on'}
        </button>
        <button
          type="button"
          disabled={test.isPending}
          onClick={() => {
            resetAll();
            test.mutate(
              {},
              {
                onSuccess: () => {
                  setTestSentAtMs(Date.now());
                  setSaid('Test event queued: it shows in the delivery log below within seconds.');
                },
              },
            );
          }}
        >
          {test.isPending ? 'Sending…' : 'Send a test event'}
        </button>
        <button
          type="button"
          onClick={() => {
            resetAll();
            setAsked('rotate');
          }}
        >
          Rotate secret
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            resetAll();
            setAsked('delete');
          }}
        >
          Delete endpoint
        </button>
      </div>
      <p role="status" className="submit-status">
        {said}
      </p>
      {change.isError ? (
        <ErrorAlert error={change.error} what="The endpoint was not changed." focusOnShow />
      ) : null}
      {test.isError ? (
        <ErrorAlert error={test.error} what="The test event was not sent." focusOnShow />
      ) : null}
      {rotate.isError ? (
        <ErrorAlert error={rotate.error} what="The secret was not rotated." focusOnShow />
      ) : null}
      {remove.isError ? (
        <ErrorAlert error={remove.error} what="The endpoint was not deleted." focusOnShow />
      ) : null}
      {rotated ? (
        <SecretOnce
          secret={rotated.secret}
          onKept={() => {
            setRotated(null);
            headingRef.current?.focus();
          }}
        >
          <p>
            New secret for {rotated.endpoint.url}.{' '}
            {rotated.endpoint.previousSecretSignsUntil
              ? `The previous one keeps signing beside it until ${formatInZoneWithUtc(rotated.endpoint.previousSecretSignsUntil, timeZone)}: give the receiver the new one before then.`
              : 'Give the receiver the new one now.'}
          </p>
        </SecretOnce>
      ) : null}

      <SubscriptionEditor endpoint={endpoint} />

      <DeliveryLog endpointId={endpoint.id} timeZone={timeZone} watchSinceMs={testSentAtMs} />

      {asked === 'rotate' ? (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          dismissLabel="Keep secret"
          onDismiss={() => setAsked(null)}
          onConfirm={() => {
            setAsked(null);
            rotate.mutate(
              {},
              {
                onSuccess: (answer) => {
                  setRotated(answer);
                  setSaid(null);
                },
              },
            );
          }}
        >
          <p>
            A new secret signs every delivery from now on. The previous one keeps signing beside it
            for a day, so the receiver can be given the new one without missing a delivery.
          </p>
        </ConfirmDialog>
      ) : null}
      {asked === 'delete' ? (
        <ConfirmDialog
          title={`Delete the endpoint ${endpoint.url}?`}
          confirmLabel="Delete endpoint"
          dismissLabel="Keep endpoint"
          onDismiss={() => setAsked(null)}
          onConfirm={() => {
            setAsked(null);
            remove.mutate({}, { onSuccess: onDeleted });
          }}
        >
          <p>
            Nothing is sent to it any more, deliveries waiting for a retry included, and its
            delivery log goes with it.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** Changes which events and sites the endpoint hears about; a refusal keeps what was chosen. */
function SubscriptionEditor({ endpoint }: { endpoint: WebhookEndpoint }) {
  const change = useChangeWebhookEndpoint(endpoint.id);
  const [saved, setSaved] = useState(false);
  const {
    register,
    handleSubmit,
    formState: { errors, isDirty },
    reset,
  } = useForm<SubscriptionForm>({
    resolver: zodResolver(SubscriptionFormSchema),
    defaultValues: {
      eventTypes: endpoint.eventTypes.filter((type) => type !== 'webhook.test'),
      sites: endpoint.siteIds.join(', '),
    },
  });
  const onChange = () => {
    change.reset();
    setSaved(false);
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    onChange();
    void handleSubmit((values) =>
      change.mutate(
        { eventTypes: values.eventTypes, siteIds: siteIdsOfLine(values.sites) },
        {
          onSuccess: () => {
            reset(values);
            setSaved(true);
          },
        },
      ),
    )(event);
  };
  return (
    <form
      className="stack"
      onSubmit={onSubmit}
      noValidate
      aria-busy={change.isPending}
      aria-labelledby="webhook-subscription"
    >
      <h3 id="webhook-subscription">What it hears about</h3>
      <SubscriptionFields
        idPrefix="webhook-edit"
        events={register('eventTypes', { onChange })}
        sites={register('sites', { onChange })}
        eventsError={errors.eventTypes?.message}
        sitesError={errors.sites?.message}
      />
      <p className="actions">
        <button type="submit" disabled={change.isPending || !isDirty}>
          {change.isPending ? 'Saving…' : 'Save events and sites'}
        </button>
        <span role="status">{saved ? 'Saved.' : ''}</span>
      </p>
      {change.isError ? (
        <ErrorAlert error={change.error} what="The events and sites were not saved." focusOnShow />
      ) : null}
    </form>
  );
}
