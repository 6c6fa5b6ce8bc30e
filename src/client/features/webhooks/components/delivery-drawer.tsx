import { useState } from 'react';
import type { WebhookDelivery } from '#domain/webhooks.ts';
import { Drawer } from '#client/components/drawer.tsx';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { QueryView } from '#client/components/query-view.tsx';
import { formatInZoneWithUtc } from '#client/lib/time.ts';
import { useDelivery, useRedeliver } from '../api/webhook-deliveries.ts';
import { DELIVERY_STATUS_WORDS, EVENT_TYPE_WORDS } from '../lib/webhook-words.ts';
import './webhooks.css';

/**
 * One delivery in a side panel: each attempt (time, status code, latency, error in words, the
 * answer's excerpt) and the payload as sent, with Redeliver (the same event and `webhook-id`
 * queued again). Focus moves in on open and back to the row on close.
 */
export function DeliveryDrawer({
  endpointId,
  deliveryId,
  timeZone,
  onClose,
  onQueued,
}: {
  endpointId: string;
  deliveryId: string;
  timeZone: string;
  onClose: () => void;
  /** It was queued again: the log watches for its attempt. */
  onQueued: () => void;
}) {
  const [redeliveredAtMs, setRedeliveredAtMs] = useState<number | null>(null);
  // Read again for a while after a redelivery, until its attempt shows.
  const query = useDelivery(endpointId, deliveryId, redeliveredAtMs);
  const redeliver = useRedeliver(endpointId);
  return (
    <Drawer
      title="Delivery"
      onClose={onClose}
      className="webhook-delivery-drawer"
      actions={
        <>
          <button
            type="button"
            disabled={redeliver.isPending || query.data === undefined}
            onClick={() => {
              redeliver.reset();
              redeliver.mutate(
                { deliveryId },
                {
                  onSuccess: () => {
                    setRedeliveredAtMs(Date.now());
                    onQueued();
                  },
                },
              );
            }}
          >
            {redeliver.isPending ? 'Redelivering…' : 'Redeliver'}
          </button>
          <span role="status">{redeliver.isSuccess ? 'Queued again' : ''}</span>
        </>
      }
    >
      {redeliver.isError ? (
        <ErrorAlert error={redeliver.error} what="It was not queued again." focusOnShow />
      ) : null}
      <QueryView
        query={query}
        loading="Loading the delivery…"
        failed="Could not read the delivery."
      >
        {(delivery) => <DeliveryDetails delivery={delivery} timeZone={timeZone} />}
      </QueryView>
    </Drawer>
  );
}

function DeliveryDetails({ delivery, timeZone }: { delivery: WebhookDelivery; timeZone: string }) {
  return (
    <div className="stack">
      <dl className="facts">
        <dt>Event</dt>
        <dd>
          {EVENT_TYPE_WORDS[delivery.eventType]} <code>{delivery.eventType}</code>
        </dd>
        <dt>Made</dt>
        <dd>{formatInZoneWithUtc(delivery.createdAt, timeZone)}</dd>
        <dt>Status</dt>
        <dd>{DELIVERY_STATUS_WORDS[delivery.status]}</dd>
        {delivery.nextAttemptAt ? (
          <>
            <dt>Next attempt</dt>
            <dd>{formatInZoneWithUtc(delivery.nextAttemptAt, timeZone)}</dd>
          </>
        ) : null}
        {delivery.redeliveredAt ? (
          <>
            <dt>Redelivered</dt>
            <dd>
              {formatInZoneWithUtc(delivery.redeliveredAt, timeZone)}
              {delivery.redeliveredBy ? ` by ${delivery.redeliveredBy}` : ''}
            </dd>
          </>
        ) : null}
        <dt>
          <code>webhook-id</code>
        </dt>
        <dd>
          <code>{delivery.eventId}</code>
        </dd>
      </dl>
      <h3>Attempts ({delivery.attempts.length})</h3>
      {delivery.attempts.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <ol className="webhook-attempts" aria-label="Attempts">
          {delivery.attempts.map((attempt, index) => (
            <li key={index} className="stack">
              <p>
                <strong>{formatInZoneWithUtc(attempt.at, timeZone)}</strong>
                {': '}
                {attempt.statusCode !== undefined
                  ? `answered ${attempt.statusCode}`
                  : 'no answer'}{' '}
                in {attempt.latencyMs} ms
              </p>
              {attempt.error ? <p className="field-error">{attempt.error}</p> : null}
              {attempt.responseExcerpt ? (
                <pre className="webhook-excerpt" aria-label="Beginning of the answer">
                  {attempt.responseExcerpt}
                </pre>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      <h3>Payload</h3>
      <pre className="webhook-excerpt" aria-label="Payload">
        {JSON.stringify(delivery.payload, null, 2)}
      </pre>
    </div>
  );
}
