import type { ProblemError } from '../http/problem.ts';
import type {
  ConnectionAudit,
  ConnectionAuditEntry,
  ConnectionChangeIntent,
} from '../session/connection-routes.ts';
import { requestFingerprint } from './idempotency.ts';
import { jsonAnswer, problemAnswer } from './ledger-answers.ts';
import type { LedgerStore } from './ledger-store.ts';

/**
 * Connection changes as ledger entries of kind `connection` (docs/security.md, Vendor
 * connections): intent before the check, outcome after. Never holds the secret. No
 * `Idempotency-Key`: a repeated registration is a change of its own.
 */
export class LedgerConnectionAudit implements ConnectionAudit {
  readonly #store: LedgerStore;
  readonly #now: () => number;
  readonly #leaseMs: number;

  /** @param leaseMs at least the token request's timeout, ms. */
  constructor(store: LedgerStore, now: () => number, leaseMs: number) {
    this.#store = store;
    this.#now = now;
    this.#leaseMs = leaseMs;
  }

  async begin(intent: ConnectionChangeIntent): Promise<ConnectionAuditEntry> {
    const { region, operator, change } = intent;
    const nowMs = this.#now();
    const { row } = await this.#store.begin({
      kind: 'connection',
      actor: {
        region,
        clientId: change.clientId,
        operator: {
          issuer: operator.issuer,
          subject: operator.subject,
          ...(operator.name ? { name: operator.name } : {}),
          ...(operator.email ? { email: operator.email } : {}),
        },
      },
      subject: { request: change },
      requestHash: requestFingerprint('connection', `connection ${region}`, change),
      nowMs,
      leaseUntilMs: nowMs + this.#leaseMs,
    });
    return {
      saved: (checked: boolean) =>
        this.#store.complete(row.id, {
          state: 'succeeded',
          outcome: { status: 200, checked },
          answer: jsonAnswer(200, { checked }),
          nowMs: this.#now(),
        }),
      refused: (problem: ProblemError) =>
        this.#store.complete(row.id, {
          state: 'failed',
          outcome: {
            status: problem.problem.status,
            error: { code: problem.problem.code, message: problem.message },
            ...(problem.problem.code === 'connection_refused' ? { checked: true } : {}),
          },
          answer: problemAnswer(problem),
          nowMs: this.#now(),
        }),
    };
  }
}
