import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_SECRET_PREFIX } from '#domain/webhooks.ts';

/** 32 random bytes, as Standard Webhooks' libraries take a secret (`whsec_` and base64). */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The Standard Webhooks headers of one delivery attempt. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs a delivery as the Standard Webhooks specification says (https://www.standardwebhooks.com,
 * Signature scheme: HMAC-SHA256 of `id.timestamp.body`, `v1,<base64>`), with the reference
 * library's `Webhook.sign`, never our own HMAC. During a rotation `secrets` holds the new secret
 * first and the previous one after it: the header carries both signatures, space separated, so a
 * receiver that has either verifies.
 *
 * @param secrets `whsec_…` secrets, newest first; at least one.
 * @param atMs the attempt's time on the wall clock, which the receiver compares with its own.
 */
export function signedHeaders(
  secrets: readonly string[],
  eventId: string,
  atMs: number,
  body: string,
): WebhookHeaders {
  const timestamp = new Date(atMs);
  const signatures = secrets.map((secret) => new Webhook(secret).sign(eventId, timestamp, body));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(atMs / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
