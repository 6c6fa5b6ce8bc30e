import type { Session } from '../session/session-store.ts';
import type { UpstreamResponse } from '../upstream/upstream-http.ts';
import type { Coalescer, SharedAnswer } from './coalescer.ts';
import type { FinalStatuses } from './final-statuses.ts';

/**
 * Command status answers for polling browsers (docs/architecture.md, Budgets: status polling): a
 * final answer (completed or cancelled, spec 3.1) is served from memory for good; others go through
 * the coalescer (concurrent identical calls shared, a 200 reused for `STATUS_REUSE_MS`). Everything
 * is keyed by region, client and the upstream status path, so no client sees another's data.
 */
export class StatusAnswers {
  readonly #coalescer: Coalescer;
  readonly #finals: FinalStatuses;

  constructor(coalescer: Coalescer, finals: FinalStatuses) {
    this.#coalescer = coalescer;
    this.#finals = finals;
  }

  /** The answer for `statusPath` (an upstream path such as `/devices/D/commands/C`). */
  async fetch(
    session: Session,
    statusPath: string,
    send: () => Promise<UpstreamResponse>,
  ): Promise<SharedAnswer> {
    const key = statusKey(session, statusPath);
    const final = this.#finals.get(key);
    if (final) return final;
    const answer = await this.#coalescer.fetch(key, send);
    this.#finals.rememberIfFinal(key, answer);
    return answer;
  }

  /**
   * After a cancel answered 2xx: the reused answer for that command is stale, so it is dropped;
   * when the cancel's answer is itself a final status record (cancel answers 200 with the record,
   * docs/architecture.md, Upstream contract: Lifecycle), it answers later polls. `body` is the
   * cancel's parsed JSON, when the BFF read it (through the ledger); undefined when it was streamed
   * through.
   */
  afterCancel(session: Session, statusPath: string, body: unknown): void {
    const key = statusKey(session, statusPath);
    this.#coalescer.forget(key);
    if (body !== undefined)
      this.#finals.rememberIfFinal(key, {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
  }

  /** Drops every reused answer of this command (a batch cancel changed it). */
  forget(session: Session, statusPath: string): void {
    this.#coalescer.forget(statusKey(session, statusPath));
  }

  /**
   * Drops every final answer kept for this client: after an unbind it may no longer be allowed
   * to read those devices (spec 5 rule 5), so the upstream decides again.
   */
  forgetClient(session: Session): void {
    this.#finals.forgetPrefix(clientPrefix(session));
  }
}

/** Prefixes already made, by client ID per region: one JSON.stringify per client, not per poll. */
const prefixes: Record<Session['region'], Map<string, string>> = { eu: new Map(), au: new Map() };

function clientPrefix(session: Session): string {
  const known = prefixes[session.region];
  let prefix = known.get(session.clientId);
  if (prefix === undefined) {
    // JSON keeps the parts apart whatever characters a client ID holds.
    prefix = `${JSON.stringify([session.region, session.clientId])} `;
    if (known.size >= 10_000) known.clear();
    known.set(session.clientId, prefix);
  }
  return prefix;
}

function statusKey(session: Session, statusPath: string): string {
  return `${clientPrefix(session)}GET ${statusPath}`;
}
