import type { Operator } from '#domain/session.ts';
import type { Region } from '#domain/token.ts';

/** Who acts, as the audit names them (the ledger's actor). */
export interface WebhookAuditActor {
  region: Region;
  clientId: string;
  operatorName?: string | undefined;
  operator?: Operator | undefined;
}

/** What an administrator changed of the account's webhooks, as the audit records it. */
export interface WebhookChange {
  action:
    | 'endpointMade'
    | 'endpointChanged'
    | 'endpointDeleted'
    | 'secretRotated'
    | 'testSent'
    | 'redelivered';
  endpointId: string;
  url?: string | undefined;
  /** What a change set: event types, sites, enabled. Never a secret. */
  changed?: Record<string, unknown> | undefined;
  deliveryId?: string | undefined;
  range?: { from: string; to: string } | undefined;
  /** How many deliveries a redelivery queued again. */
  redelivered?: number | undefined;
}

/**
 * Records each change of webhooks in the audit (the ledger, kind `webhook`: docs/security.md,
 * Webhooks), under who made it; implemented by `ledger/webhook-audit.ts`.
 */
export interface WebhookAudit {
  record(actor: WebhookAuditActor, change: WebhookChange): Promise<void>;
}
