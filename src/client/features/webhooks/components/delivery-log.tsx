import { useState } from 'react';
import { WebhookDeliveryStatusSchema, type WebhookDelivery } from '#domain/webhooks.ts';
import { Loading } from '#client/components/loading.tsx';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { formatClockWithUtc } from '#client/lib/time.ts';
import { useDeliveryPage } from '../api/webhook-deliveries.ts';
import type { DeliveryPageQuery } from '../api/webhook-keys.ts';
import {
  DELIVERY_STATUS_WORDS,
  EVENT_TYPE_WORDS,
  attemptAnswerWords,
} from '../lib/webhook-words.ts';
import { DeliveryDrawer } from './delivery-drawer.tsx';
import { RedeliverRange } from './redeliver-range.tsx';
import './webhooks.css';

const STATUS_CLASS = {
  pending: 'status-executing',
  succeeded: 'status-completed',
  failed: 'webhook-failed',
} as const;

/**
 * An endpoint's delivery log, newest first, a page at a time (kept 30 days): time, event, status,
 * attempts, the latest answer and the next attempt, filtered by status. A row opens the delivery
 * (its attempts and payload, redeliver); below, every failed delivery of a range is redelivered.
 */
export function DeliveryLog({
  endpointId,
  timeZone,
  watchSinceMs = null,
}: {
  endpointId: string;
  timeZone: string;
  /** When the page queued a delivery (a test event): the log is read again for a while after. */
  watchSinceMs?: number | null;
}) {
  // When a redelivery from this log was queued.
  const [queuedAtMs, setQueuedAtMs] = useState<number | null>(null);
  const watchingSinceMs = Math.max(watchSinceMs ?? 0, queuedAtMs ?? 0) || null;
  const [status, setStatus] = useState<DeliveryPageQuery['status']>();
  // The `before` cursor of each page shown so far: the last is the current page.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const before = cursors.at(-1);
  const page = useDeliveryPage(endpointId, { status, before }, watchingSinceMs);
  const [openId, setOpenId] = useState<string | null>(null);
  const [nowMs] = useState(() => Date.now());

  return (
    <section className="stack" aria-labelledby="webhook-log">
      <h3 id="webhook-log">Delivery log</h3>
      <div className="inline-form">
        <div className="field">
          <label htmlFor="webhook-log-status">Status</label>
          <select
            id="webhook-log-status"
            value={status ?? ''}
            onChange={(event) => {
              const chosen = WebhookDeliveryStatusSchema.safeParse(event.target.value);
              setStatus(chosen.success ? chosen.data : undefined);
              setCursors([undefined]);
            }}
          >
            <option value="">Every status</option>
            {WebhookDeliveryStatusSchema.options.map((option) => (
              <option key={option} value={option}>
                {DELIVERY_STATUS_WORDS[option]}
              </option>
            ))}
          </select>
        </div>
      </div>
      {page.isError ? (
        <ErrorAlert
          error={page.error}
          what="Could not read the delivery log."
          onRetry={() => void page.refetch()}
        />
      ) : page.isPending ? (
        <Loading what="Loading the delivery log…" />
      ) : page.data.deliveries.length === 0 ? (
        <p className="empty-state">
          {status
            ? `No deliveries with the status ${DELIVERY_STATUS_WORDS[status].toLowerCase()} on this page of the log.`
            : 'Nothing delivered yet. Send a test event to see one here.'}
        </p>
      ) : (
        <div className="table-scroll" aria-busy={page.isFetching}>
          <table className="webhook-log">
            <caption className="visually-hidden">Deliveries to this endpoint, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Latest answer</th>
                <th scope="col">Next attempt</th>
              </tr>
            </thead>
            <tbody>
              {page.data.deliveries.map((delivery) => (
                <DeliveryRow
                  key={delivery.id}
                  delivery={delivery}
                  timeZone={timeZone}
                  nowMs={nowMs}
                  onOpen={() => setOpenId(delivery.id)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="actions">
        {cursors.length > 1 ? (
          <button type="button" onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer deliveries
          </button>
        ) : null}
        {page.data?.next ? (
          <button type="button" onClick={() => setCursors([...cursors, page.data.next])}>
            Older deliveries
          </button>
        ) : null}
      </p>
      <RedeliverRange
        endpointId={endpointId}
        timeZone={timeZone}
        onQueued={() => setQueuedAtMs(Date.now())}
      />
      {openId ? (
        <DeliveryDrawer
          endpointId={endpointId}
          deliveryId={openId}
          timeZone={timeZone}
          onClose={() => setOpenId(null)}
          onQueued={() => setQueuedAtMs(Date.now())}
        />
      ) : null}
    </section>
  );
}

function DeliveryRow({
  delivery,
  timeZone,
  nowMs,
  onOpen,
}: {
  delivery: WebhookDelivery;
  timeZone: string;
  nowMs: number;
  onOpen: () => void;
}) {
  const latest = delivery.attempts.at(-1);
  return (
    <tr>
      <th scope="row">
        <button type="button" className="small" onClick={onOpen}>
          {formatClockWithUtc(delivery.createdAt, timeZone, nowMs)}
          <span className="visually-hidden">: open its attempts</span>
        </button>
      </th>
      <td>
        {EVENT_TYPE_WORDS[delivery.eventType]}
        {delivery.redeliveredAt ? (
          <span className="status-reason">
            redelivered {formatClockWithUtc(delivery.redeliveredAt, timeZone, nowMs)}
            {delivery.redeliveredBy ? ` by ${delivery.redeliveredBy}` : ''}
          </span>
        ) : null}
      </td>
      <td>
        <span className={`status ${STATUS_CLASS[delivery.status]}`}>
          {DELIVERY_STATUS_WORDS[delivery.status]}
        </span>
      </td>
      <td>{delivery.attempts.length}</td>
      <td>{latest ? attemptAnswerWords(latest) : 'none yet'}</td>
      <td>
        {delivery.nextAttemptAt ? formatClockWithUtc(delivery.nextAttemptAt, timeZone, nowMs) : '—'}
      </td>
    </tr>
  );
}
