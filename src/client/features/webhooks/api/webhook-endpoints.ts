import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  WebhookEndpointListSchema,
  WebhookEndpointMadeSchema,
  WebhookEndpointSchema,
  type WebhookEndpoint,
  type WebhookEndpointChange,
  type WebhookEndpointMade,
  type WebhookEndpointRequest,
} from '#domain/webhooks.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { useKeyedMutation, type IntentHeaders } from '#client/commands/lib/operator-intent.ts';
import { webhookKeys } from './webhook-keys.ts';

const endpointPath = (endpointId: string) => `/webhooks/${encodeURIComponent(endpointId)}`;

/** `GET /api/webhooks`: the account's endpoints, never a secret (administrators). */
export const webhookEndpointsQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.list(),
    queryFn: ({ signal }) => apiRequest('/webhooks', WebhookEndpointListSchema, { signal }),
  });

export const useWebhookEndpoints = () => useQuery(webhookEndpointsQueryOptions());

/** `GET /api/webhooks/{endpointId}`: one endpoint, never its secret. */
export const webhookEndpointQueryOptions = (endpointId: string) =>
  queryOptions({
    queryKey: webhookKeys.detail(endpointId),
    queryFn: ({ signal }) =>
      apiRequest(endpointPath(endpointId), WebhookEndpointSchema, { signal }),
  });

export const useWebhookEndpoint = (endpointId: string) =>
  useQuery(webhookEndpointQueryOptions(endpointId));

/**
 * `POST /api/webhooks`: subscribes an address to event types and sites; its signing secret is in
 * this answer only (docs/automation.md, Webhooks).
 */
export function makeWebhookEndpoint(
  request: WebhookEndpointRequest,
  intent?: IntentHeaders,
): Promise<WebhookEndpointMade> {
  return apiRequest('/webhooks', WebhookEndpointMadeSchema, {
    method: 'POST',
    body: request,
    idempotencyKey: intent?.idempotencyKey,
  });
}

export function useMakeWebhookEndpoint() {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: ({ idempotencyKey, ...request }: WebhookEndpointRequest & IntentHeaders) =>
      makeWebhookEndpoint(request, { idempotencyKey }),
    // The answer holds the secret: dropped as soon as the page no longer shows it.
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.list() }),
  });
}

/** `PATCH /api/webhooks/{endpointId}`: what is given changes; `enabled: true` turns it on again. */
export function changeWebhookEndpoint(
  endpointId: string,
  change: WebhookEndpointChange,
  intent?: IntentHeaders,
): Promise<WebhookEndpoint> {
  return apiRequest(endpointPath(endpointId), WebhookEndpointSchema, {
    method: 'PATCH',
    body: change,
    idempotencyKey: intent?.idempotencyKey,
  });
}

export function useChangeWebhookEndpoint(endpointId: string) {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: ({ idempotencyKey, ...change }: WebhookEndpointChange & IntentHeaders) =>
      changeWebhookEndpoint(endpointId, change, { idempotencyKey }),
    onSuccess: (endpoint) => {
      queryClient.setQueryData(webhookKeys.detail(endpointId), endpoint);
      return queryClient.invalidateQueries({ queryKey: webhookKeys.list() });
    },
  });
}

/** `DELETE /api/webhooks/{endpointId}`: nothing is sent to it any more; its log goes with it. */
export function deleteWebhookEndpoint(endpointId: string, intent?: IntentHeaders): Promise<void> {
  return apiRequest(endpointPath(endpointId), null, {
    method: 'DELETE',
    idempotencyKey: intent?.idempotencyKey,
  });
}

export function useDeleteWebhookEndpoint(endpointId: string) {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: (intent: IntentHeaders) => deleteWebhookEndpoint(endpointId, intent),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: webhookKeys.endpoint(endpointId) });
      return queryClient.invalidateQueries({ queryKey: webhookKeys.list() });
    },
  });
}

/**
 * `POST /api/webhooks/{endpointId}/rotate-secret`: a new secret, in this answer only; the previous
 * one keeps signing beside it until `previousSecretSignsUntil`.
 */
export function rotateWebhookSecret(
  endpointId: string,
  intent?: IntentHeaders,
): Promise<WebhookEndpointMade> {
  return apiRequest(`${endpointPath(endpointId)}/rotate-secret`, WebhookEndpointMadeSchema, {
    method: 'POST',
    idempotencyKey: intent?.idempotencyKey,
  });
}

export function useRotateWebhookSecret(endpointId: string) {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: (intent: IntentHeaders) => rotateWebhookSecret(endpointId, intent),
    gcTime: 0,
    onSuccess: ({ endpoint }) => {
      queryClient.setQueryData(webhookKeys.detail(endpointId), endpoint);
      return queryClient.invalidateQueries({ queryKey: webhookKeys.list() });
    },
  });
}

/** `POST /api/webhooks/{endpointId}/test`: queues a `webhook.test` event to the endpoint (202). */
export function sendWebhookTest(endpointId: string, intent?: IntentHeaders): Promise<void> {
  return apiRequest(`${endpointPath(endpointId)}/test`, null, {
    method: 'POST',
    idempotencyKey: intent?.idempotencyKey,
  });
}

export function useSendWebhookTest(endpointId: string) {
  const queryClient = useQueryClient();
  return useKeyedMutation({
    mutationFn: (intent: IntentHeaders) => sendWebhookTest(endpointId, intent),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(endpointId) }),
  });
}
