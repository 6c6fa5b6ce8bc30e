import type {
  WebhookAttempt,
  WebhookDeliveryStatus,
  WebhookDisabledReason,
  WebhookEndpoint,
  WebhookEventType,
} from '#domain/webhooks.ts';

/**
 * Each event type in the operator's words (src/domain/webhooks.ts says when each is sent); the
 * dotted name stays beside it on the page, as a receiver's code reads it.
 */
export const EVENT_TYPE_WORDS: Record<WebhookEventType, string> = {
  'deviceCommand.statusChanged': "A device command's status changed",
  'deviceCommand.verdict': 'A device command got its verdict',
  'change.sent': 'A queued change was sent',
  'change.refused': 'A queued change was refused',
  'change.withdrawn': 'A queued change was withdrawn',
  'batch.deviceFailed': 'A device of a batch failed',
  'fleetJob.progressed': 'A fleet job sent a batch',
  'fleetJob.ended': 'A fleet job ended',
  'site.unbound': 'A site was unbound',
  'device.budgetSpent': "A device's calls to the vendor are spent",
  'webhook.test': 'Test event',
};

/** The events an endpoint subscribes to, grouped as the operator meets them; never `webhook.test`. */
export const EVENT_GROUPS: readonly { name: string; types: readonly WebhookEventType[] }[] = [
  { name: 'Device commands', types: ['deviceCommand.statusChanged', 'deviceCommand.verdict'] },
  { name: 'Queued changes', types: ['change.sent', 'change.refused', 'change.withdrawn'] },
  {
    name: 'Batches and fleet jobs',
    types: ['batch.deviceFailed', 'fleetJob.progressed', 'fleetJob.ended'],
  },
  { name: 'Sites and devices', types: ['site.unbound', 'device.budgetSpent'] },
];

/** Why an endpoint receives nothing, as its row and page say it. */
export const DISABLED_REASON_WORDS: Record<WebhookDisabledReason, string> = {
  gone: 'Turned off: the address answered Gone',
  failing: 'Turned off after failing for three days',
  byAdministrator: 'Turned off by an administrator',
};

/** An endpoint's state: on, or why it is off. */
export function endpointStateWords(endpoint: WebhookEndpoint): string {
  if (endpoint.enabled) return 'On';
  return endpoint.disabledReason ? DISABLED_REASON_WORDS[endpoint.disabledReason] : 'Turned off';
}

/** The sites an endpoint hears about: its Plant IDs, or every site. */
export const endpointSitesWords = (siteIds: readonly string[]): string =>
  siteIds.length > 0 ? siteIds.join(', ') : 'every site';

export const DELIVERY_STATUS_WORDS: Record<WebhookDeliveryStatus, string> = {
  pending: 'Waiting',
  succeeded: 'Delivered',
  failed: 'Failed',
};

/** An attempt's answer in a few words: `200 in 35 ms`, or why none came (`timed out after 10 s, 10000 ms`). */
export function attemptAnswerWords(attempt: WebhookAttempt): string {
  const latency = `${attempt.latencyMs} ms`;
  if (attempt.statusCode !== undefined)
    return attempt.error
      ? `${attempt.statusCode} in ${latency}: ${attempt.error}`
      : `${attempt.statusCode} in ${latency}`;
  return `no answer after ${latency}${attempt.error ? `: ${attempt.error}` : ''}`;
}
