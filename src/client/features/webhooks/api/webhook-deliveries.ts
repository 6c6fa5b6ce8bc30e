import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  WebhookDeliveryPageSchema,
  WebhookDeliverySchema,
  WebhookRedeliveredSchema,
  type WebhookRedeliverRange,
} from '#domain/webhooks.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { useKeyedMutation, type IntentHeaders } from '#client/commands/lib/operator-intent.ts';
import { webhookKeys, type DeliveryPageQuery } from './webhook-keys.ts';

/** Deliveries on one page of the log. */
export const DELIVERY_PAGE_SIZE = 25;

/** While a shown delivery waits for an attempt, its log is read again this often, ms. */
export const PENDING_REFRESH_MS = 3_000;

/** How long after an action that makes or queues a delivery its log is read again, ms. */
export const WATCH_AFTER_ACTION_MS = 30_000;

/**
 * `refetchInterval` of a log read: {@link PENDING_REFRESH_MS} while a delivery it shows waits, or
 * for {@link WATCH_AFTER_ACTION_MS} after `watchSinceMs` (a test event sent, a redelivery), whose
 * delivery or new attempt may not be in the answer yet; else no refresh.
 */
export function logRefreshMs(pending: boolean, watchSinceMs: number | null): number | false {
  const watching = watchSinceMs !== null && Date.now() - watchSinceMs < WATCH_AFTER_ACTION_MS;
  return pending || watching ? PENDING_REFRESH_MS : false;
}

const deliveriesPath = (endpointId: string) =>
  `/webhooks/${encodeURIComponent(endpointId)}/deliveries`;

/**
 * `GET /api/webhooks/{endpointId}/deliveries`: a page of the endpoint's log, newest first, read
 * again every few seconds while one of its deliveries waits for an attempt or after an action
 * ({@link logRefreshMs}).
 */
export const deliveryPageQueryOptions = (
  endpointId: string,
  query: DeliveryPageQuery,
  watchSinceMs: number | null = null,
) =>
  queryOptions({
    queryKey: webhookKeys.deliveryPage(endpointId, query),
    queryFn: ({ signal }) =>
      apiRequest(deliveriesPath(endpointId), WebhookDeliveryPageSchema, {
        signal,
        query: { status: query.status, before: query.before, limit: DELIVERY_PAGE_SIZE },
      }),
    refetchInterval: ({ state }) =>
      logRefreshMs(
        state.data?.deliveries.some((delivery) => delivery.status === 'pending') ?? false,
        watchSinceMs,
      ),
  });

export const useDeliveryPage = (
  endpointId: string,
  query: DeliveryPageQuery,
  watchSinceMs: number | null = null,
) => useQuery(deliveryPageQueryOptions(endpointId, query, watchSinceMs));

/** `GET /api/webhooks/{endpointId}/deliveries/{deliveryId}`: one delivery with its attempts and payload. */
export const deliveryQueryOptions = (
  endpointId: string,
  deliveryId: string,
  watchSinceMs: number | null = null,
) =>
  queryOptions({
    queryKey: webhookKeys.delivery(endpointId, deliveryId),
    queryFn: ({ signal }) =>
      apiRequest(
        `${deliveriesPath(endpointId)}/${encodeURIComponent(deliveryId)}`,
        WebhookDeliverySchema,
        { signal },
      ),
    refetchInterval: ({ state }) => logRefreshMs(state.data?.status === 'pending', watchSinceMs),
  });

export const useDelivery = (
  endpointId: string,
  deliveryId: string,
  watchSinceMs: number | null = null,
) => useQuery(deliveryQueryOptions(endpointId, deliveryId, watchSinceMs));

/** `POST …/deliveries/{deliveryId}/redeliver`: the same event (same `webhook-id`) queued again. */
export function redeliver(
  endpointId: string,
  deliveryId: string,
  intent?: IntentHeaders,
): Promise<number> {
  return apiRequest(
    `${deliveriesPath(endpointId)}/${encodeURIComponent(deliveryId)}/redeliver`,
    WebhookRedeliveredSchema,
    { method: 'POST', idempotencyKey: intent?.idempotencyKey },
  ).then(({ redelivered }) => redelivered);
}

export function useRedeliver(endpointId: string) {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: ({ deliveryId, ...intent }: { deliveryId: string } & IntentHeaders) =>
      redeliver(endpointId, deliveryId, intent),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(endpointId) }),
  });
}

/**
 * `POST /api/webhooks/{endpointId}/redeliver`: every failed delivery made between `from` and `to` queued
 * again; answers how many.
 */
export function redeliverFailed(
  endpointId: string,
  range: WebhookRedeliverRange,
  intent?: IntentHeaders,
): Promise<number> {
  return apiRequest(
    `/webhooks/${encodeURIComponent(endpointId)}/redeliver`,
    WebhookRedeliveredSchema,
    { method: 'POST', body: range, idempotencyKey: intent?.idempotencyKey },
  ).then(({ redelivered }) => redelivered);
}

export function useRedeliverFailed(endpointId: string) {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: ({ idempotencyKey, ...range }: WebhookRedeliverRange & IntentHeaders) =>
      redeliverFailed(endpointId, range, { idempotencyKey }),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(endpointId) }),
  });
}
