import type { WebhookAudit, WebhookChange } from '../webhooks/webhook-audit.ts';
import { requestFingerprint } from './idempotency.ts';
import { jsonAnswer } from './ledger-answers.ts';
import type { LedgerActor } from './ledger-rows.ts';
import type { LedgerStore } from './ledger-store.ts';

/**
 * Webhook changes as ledger entries of kind `webhook` (docs/security.md, Webhooks): made,
 * changed, deleted, secret rotated, test sent, redelivered; each written done, since nothing
 * upstream can refuse it. Never holds a secret.
 */
export class LedgerWebhookAudit implements WebhookAudit {
  readonly #store: LedgerStore;
  readonly #now: () => number;

  constructor(store: LedgerStore, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  async record(actor: LedgerActor, change: WebhookChange): Promise<void> {
    const nowMs = this.#now();
    const { row } = await this.#store.begin({
      kind: 'webhook',
      actor: {
        region: actor.region,
        clientId: actor.clientId,
        ...(actor.operatorName ? { operatorName: actor.operatorName } : {}),
        ...(actor.operator ? { operator: actor.operator } : {}),
      },
      subject: { request: change },
      requestHash: requestFingerprint('webhook', `webhook ${change.endpointId}`, change),
      nowMs,
      leaseUntilMs: nowMs,
    });
    await this.#store.complete(row.id, {
      state: 'succeeded',
      outcome: { status: 200 },
      answer: jsonAnswer(200, change),
      nowMs,
    });
  }
}
