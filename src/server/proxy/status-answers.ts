import type { Session } from '../session/session-store.ts';
import type { UpstreamResponse } from '../upstream/upstream-http.ts';
import { Coalescer, type SharedAnswer } from './coalescer.ts';
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

  /**
   * @param reuseMs how long a 200 answer is reused (`STATUS_REUSE_MS`), ms.
   * @param finals where final answers are kept; each upstream answer is offered to it once.
   */
  constructor(now: () => number, reuseMs: number, finals: FinalStatuses) {
    this.#finals = finals;
    this.#coalescer = new Coalescer(now, reuseMs, (key, answer) =>
      finals.rememberIfFinal(key, answer),
    );
  }

  /** The answer for `statusPath` (an upstream path such as `/devices/D/commands/C`). */
  fetch(
    session: Session,
    statusPath: string,
    send: () => Promise<UpstreamResponse>,
  ): Promise<SharedAnswer> {
    const key = statusKey(session, statusPath);
    const final = this.#finals.get(key);
    if (final) return Promise.resolve(final);
    return this.#coalescer.fetch(key, send);
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
   * Drops every answer kept for this client, final or reused, and those in flight: after an
   * unbind it may no longer read those devices (spec 5 rule 5), so from then on the upstream
   * decides again, and nothing asked before the unbind answers a poll made after it.
   */
  forgetClient(session: Session): void {
    const prefix = clientPrefix(session);
    this.#coalescer.forgetPrefix(prefix);
    this.#finals.forgetPrefix(prefix);
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
