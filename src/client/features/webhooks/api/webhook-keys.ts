import type { WebhookDeliveryStatus } from '#domain/webhooks.ts';

/** Which page of an endpoint's delivery log: a status filter, and the page's `before` cursor. */
export interface DeliveryPageQuery {
  status?: WebhookDeliveryStatus | undefined;
  before?: string | undefined;
}

/**
 * Query keys of the account's webhooks, generic to specific: `all > list()`, and
 * `all > endpoint(id) > detail(id)`, `deliveries(id) > deliveryPage(id, query)`, `delivery(id, dlv)`,
 * so a change to an endpoint makes its own reads stale and a redelivery its log.
 */
export const webhookKeys = {
  all: ['webhooks'] as const,
  list: () => [...webhookKeys.all, 'list'] as const,
  endpoint: (endpointId: string) => [...webhookKeys.all, 'endpoint', endpointId] as const,
  detail: (endpointId: string) => [...webhookKeys.endpoint(endpointId), 'detail'] as const,
  deliveries: (endpointId: string) => [...webhookKeys.endpoint(endpointId), 'deliveries'] as const,
  deliveryPage: (endpointId: string, query: DeliveryPageQuery) =>
    [...webhookKeys.deliveries(endpointId), 'page', query] as const,
  delivery: (endpointId: string, deliveryId: string) =>
    [...webhookKeys.deliveries(endpointId), 'delivery', deliveryId] as const,
};
