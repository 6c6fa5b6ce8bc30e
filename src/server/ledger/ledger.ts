import type { FastifyReply, FastifyRequest } from 'fastify';
import { BatchRequestSchema } from '../../domain/batch.ts';
import { DeviceCommandSchema } from '../../domain/command.ts';
import type { LedgerKind, LedgerOutcome } from '../../domain/ledger.ts';
import { ProblemError } from '../http/problem.ts';
import type { Session } from '../session/session-store.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { UpstreamCall, UpstreamClient } from '../upstream/upstream-client.ts';
import { upstreamProblem } from '../upstream/upstream-problem.ts';
import { isJsonMediaType, mediaType, readCapped } from '../upstream/upstream-http.ts';
import { readIdempotencyKey, requestFingerprint } from './idempotency.ts';
import {
  inProgress,
  problemAnswer,
  sendAnswer,
  unknownOutcome,
  type LedgerAnswer,
} from './ledger-answers.ts';
import {
  NOT_ACTED_ON_STATUSES,
  type LedgerActor,
  type LedgerRow,
  type LedgerStore,
  type LedgerSubject,
  type StoredAnswer,
} from './ledger-store.ts';
import { reconcileSubmission, type SubmissionIntent } from './reconcile.ts';

/** How a mirrored route is recorded: its kind, its subject, and what its 2xx answer means. */
export interface LedgerSpec {
  kind: LedgerKind;
  subject(input: { params: unknown; body: unknown }): LedgerSubject;
  /** Reads the upstream's 2xx JSON body (`undefined` for an empty answer) into the outcome. */
  outcome(body: unknown): { outcome: LedgerOutcome; commandId?: string; batchCommandId?: string };
}

/** Codes of transport failures after which the upstream may or may not have acted. */
const MAYBE_SENT = new Set(['upstream_timeout', 'upstream_unreachable', 'upstream_body_too_large']);

/** Test-only hooks; `afterUpstreamAnswer` runs between the upstream's answer and the ledger write. */
export interface LedgerHooks {
  afterUpstreamAnswer?: (kind: LedgerKind) => void;
}

/**
 * Runs the state-changing calls through the command ledger (issue 4): idempotency by
 * `Idempotency-Key` (same key and request, same answer, one upstream call; same key, other
 * request: 422; still under way: 409), reconciliation of unsettled submissions on the same
 * device and window before sending, intent written before the upstream call and the outcome
 * after it. Submissions are never re-sent blindly.
 */
export class Ledger {
  readonly #store: LedgerStore;
  readonly #upstream: UpstreamClient;
  readonly #api: UpstreamApi;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #hooks: LedgerHooks;

  constructor(options: {
    store: LedgerStore;
    upstream: UpstreamClient;
    api: UpstreamApi;
    now: () => number;
    leaseMs: number;
    hooks?: LedgerHooks | undefined;
  }) {
    this.#store = options.store;
    this.#upstream = options.upstream;
    this.#api = options.api;
    this.#now = options.now;
    this.#leaseMs = options.leaseMs;
    this.#hooks = options.hooks ?? {};
  }

  get store(): LedgerStore {
    return this.#store;
  }

  /**
   * Runs one state-changing call and answers the browser. `onSuccess` sees every 2xx answer sent,
   * fresh or replayed (the status cache learns from cancels).
   *
   * @throws ProblemError for refusals, upstream errors and unknown outcomes (see the class doc).
   */
  async run(
    spec: LedgerSpec,
    request: FastifyRequest,
    reply: FastifyReply,
    session: Session,
    input: { params: unknown; body: unknown },
    call: UpstreamCall,
    onSuccess?: (answer: StoredAnswer) => void,
  ): Promise<FastifyReply> {
    const result = await this.#run(spec, request, session, input, call);
    if (result.answer.status >= 200 && result.answer.status < 300) onSuccess?.(result.answer);
    return sendAnswer(reply, result);
  }

  async #run(
    spec: LedgerSpec,
    request: FastifyRequest,
    session: Session,
    input: { params: unknown; body: unknown },
    call: UpstreamCall,
  ): Promise<LedgerAnswer> {
    const actor = actorOf(session);
    const key = readIdempotencyKey(request);
    const fingerprint = requestFingerprint(spec.kind, call.path, call.body);
    if (key) {
      const existing = await this.#store.findByKey(actor, key);
      if (existing) return this.#resume(existing, fingerprint, spec, session, call);
    }
    const subject = spec.subject(input);
    const intent = submissionIntent(spec.kind, subject);
    if (intent) await this.#settleBlocking(actor, session, intent);
    const nowMs = this.#now();
    const { created, row } = await this.#store.begin({
      kind: spec.kind,
      actor,
      subject,
      idempotencyKey: key,
      requestHash: fingerprint,
      nowMs,
      leaseUntilMs: nowMs + this.#leaseMs,
    });
    if (!created) return this.#resume(row, fingerprint, spec, session, call);
    return this.#attempt(row, spec, session, call);
  }

  /** Answers a retry with a known key: replay, wait, or settle then replay or re-send. */
  async #resume(
    row: LedgerRow,
    fingerprint: string,
    spec: LedgerSpec,
    session: Session,
    call: UpstreamCall,
  ): Promise<LedgerAnswer> {
    if (row.requestHash !== fingerprint)
      throw new ProblemError(
        422,
        'idempotency_key_reused',
        'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
      );
    const nowMs = this.#now();
    const leaseMs = row.leaseUntil?.getTime() ?? 0;
    const retryable =
      row.state === 'failed' &&
      (NOT_ACTED_ON_STATUSES as readonly number[]).includes(row.responseStatus ?? 0);
    if ((row.state === 'succeeded' || row.state === 'failed') && row.response) {
      if (!retryable) return { answer: row.response as StoredAnswer, replayed: true };
    } else if (leaseMs >= nowMs) throw inProgress(leaseMs - nowMs);

    const intent = submissionIntent(row.kind as LedgerKind, subjectOfRow(row));
    if (intent) {
      const settled = await this.#reconcile(row, session, intent);
      if (settled) return { answer: settled, replayed: true };
    }
    if (!(await this.#store.claim(row, nowMs, nowMs + this.#leaseMs))) throw inProgress(1000);
    return this.#attempt(row, spec, session, call);
  }

  /** Settles every unsettled submission on the devices and window of `intent` (issue 4). */
  async #settleBlocking(actor: LedgerActor, session: Session, intent: SubmissionIntent) {
    const rows = await this.#store.unsettled(actor, intent.deviceIds, intent);
    const nowMs = this.#now();
    const busyUntilMs = Math.max(0, ...rows.map((row) => row.leaseUntil?.getTime() ?? 0));
    if (busyUntilMs >= nowMs)
      throw new ProblemError(
        409,
        'window_unsettled',
        'An earlier submission for this device and window is still under way, or its outcome is still being confirmed. Nothing was sent; try again shortly.',
        {
          headers: { 'retry-after': String(Math.max(1, Math.ceil((busyUntilMs - nowMs) / 1000))) },
        },
      );
    for (const row of rows) {
      const rowIntent = submissionIntent(row.kind as LedgerKind, subjectOfRow(row));
      if (!rowIntent) continue;
      const settled = await this.#reconcile(row, session, rowIntent);
      if (!settled)
        await this.#store.complete(row.id, {
          state: 'failed',
          outcome: {
            reconciled: 'absent',
            error: { code: 'not_carried_out', message: NOT_CARRIED_OUT },
          },
          answer: problemAnswer(new ProblemError(409, 'not_carried_out', NOT_CARRIED_OUT)),
          nowMs: this.#now(),
        });
    }
  }

  /**
   * Looks the submission up in the history; when found, completes the entry and returns the
   * answer it now replays. Undefined when not found (nothing written).
   *
   * @throws ProblemError 503 `reconciliation_pending` when the history cannot be read; 409
   *   `reconciliation_ambiguous` when several batches fit it (the entry stays unknown).
   */
  async #reconcile(
    row: LedgerRow,
    session: Session,
    intent: SubmissionIntent,
  ): Promise<StoredAnswer | undefined> {
    let result;
    try {
      result = await reconcileSubmission(
        (deviceId, range) => this.#api.historyRecords(session, deviceId, range),
        intent,
        (deviceId) => this.#store.knownCommandIds(actorOf(session), deviceId),
      );
    } catch (error) {
      const cause = error instanceof ProblemError ? ` (${error.problem.detail})` : '';
      throw new ProblemError(
        503,
        'reconciliation_pending',
        `An earlier submission for this device and window has an unknown outcome, and the command history could not be read to settle it${cause}. Nothing was sent; try again in a moment.`,
        { headers: { 'retry-after': '5' } },
      );
    }
    if (result.found === 'ambiguous')
      throw new ProblemError(
        409,
        'reconciliation_ambiguous',
        `An earlier batch for these devices and window has an unknown outcome, and the command history holds ${result.batchCommandIds.length} batches that fit it equally (${result.batchCommandIds.join(', ')}). Nothing was sent; check the batches in the command history and cancel any that is not wanted.`,
      );
    if (!result.found) return undefined;
    const first = result.commands[0];
    const nowIso = new Date(this.#now()).toISOString();
    const body =
      row.kind === 'batch'
        ? {
            batchCommandId: result.batchCommandId ?? '',
            message: RECONCILED,
            timestamp: nowIso,
            commands: result.commands,
          }
        : { id: first?.id ?? '', message: RECONCILED, timestamp: nowIso };
    const answer: StoredAnswer = { status: 202, contentType: 'application/json', body };
    await this.#store.complete(row.id, {
      state: 'succeeded',
      outcome: { status: 202, commands: result.commands, reconciled: 'found' },
      answer,
      commandId: row.kind === 'submit' ? first?.id : undefined,
      batchCommandId: result.batchCommandId,
      nowMs: this.#now(),
    });
    return answer;
  }

  /** One upstream call for an entry held pending by this request. */
  async #attempt(
    row: LedgerRow,
    spec: LedgerSpec,
    session: Session,
    call: UpstreamCall,
  ): Promise<LedgerAnswer> {
    let response;
    try {
      response = await this.#upstream.send(session, call);
    } catch (error) {
      const problem =
        error instanceof ProblemError
          ? error
          : new ProblemError(502, 'upstream_unreachable', 'The upstream could not be reached.');
      const maybeSent = MAYBE_SENT.has(problem.problem.code);
      const answer = maybeSent ? unknownOutcome(problem) : problem;
      await this.#store.complete(row.id, {
        state: maybeSent ? 'unknown' : 'failed',
        outcome: { error: { code: problem.problem.code, message: problem.message } },
        answer: problemAnswer(answer),
        nowMs: this.#now(),
        ...(maybeSent ? { leaseUntilMs: this.#now() + this.#leaseMs } : {}),
      });
      throw answer;
    }
    this.#hooks.afterUpstreamAnswer?.(spec.kind);

    const status = response.statusCode;
    if (status >= 200 && status < 300) {
      let body: unknown;
      try {
        const text = await readCapped(response.body);
        if (text.length > 0 && !isJsonMediaType(mediaType(response.headers)))
          throw new Error('not JSON');
        body = text.length > 0 ? (JSON.parse(text) as unknown) : undefined;
      } catch {
        const problem = unknownOutcome(
          new ProblemError(
            502,
            'upstream_error',
            'The upstream accepted but its answer was unreadable.',
          ),
        );
        await this.#store.complete(row.id, {
          state: 'unknown',
          outcome: { status, error: { code: 'upstream_error', message: problem.message } },
          answer: problemAnswer(problem),
          nowMs: this.#now(),
          leaseUntilMs: this.#now() + this.#leaseMs,
        });
        throw problem;
      }
      const read = spec.outcome(body);
      const answer: StoredAnswer = { status, contentType: 'application/json', body };
      await this.#store.complete(row.id, {
        state: 'succeeded',
        outcome: { status, ...read.outcome },
        answer,
        commandId: read.commandId,
        batchCommandId: read.batchCommandId,
        nowMs: this.#now(),
      });
      return { answer, replayed: false };
    }

    const problem = await upstreamProblem(response);
    const maybeSent = status >= 500;
    const answer = maybeSent ? unknownOutcome(problem) : problem;
    await this.#store.complete(row.id, {
      state: maybeSent ? 'unknown' : 'failed',
      outcome: {
        status,
        error: { code: problem.problem.code, message: problem.message },
      },
      answer: problemAnswer(answer),
      nowMs: this.#now(),
      ...(maybeSent ? { leaseUntilMs: this.#now() + this.#leaseMs } : {}),
    });
    throw answer;
  }
}

const RECONCILED = 'Accepted: confirmed from the command history after the first answer was lost';
const NOT_CARRIED_OUT =
  'The upstream did not carry this submission out (its outcome was unknown and the command history has no such command). Submit it again if it is still wanted.';

function actorOf(session: Session): LedgerActor {
  return { region: session.region, clientId: session.clientId, operatorName: session.operatorName };
}

function subjectOfRow(row: LedgerRow): LedgerSubject {
  return {
    ...(row.deviceId ? { deviceId: row.deviceId } : {}),
    request: row.request,
  };
}

/** The devices, window and control of a submission or batch; undefined for other kinds. */
function submissionIntent(kind: LedgerKind, subject: LedgerSubject): SubmissionIntent | undefined {
  if (kind === 'submit' && subject.deviceId) {
    const command = DeviceCommandSchema.safeParse(subject.request);
    if (!command.success) return undefined;
    return { deviceIds: [subject.deviceId], ...command.data, batch: false };
  }
  if (kind === 'batch') {
    const batch = BatchRequestSchema.safeParse(subject.request);
    if (!batch.success) return undefined;
    return { deviceIds: batch.data.devices, ...batch.data.command, batch: true };
  }
  return undefined;
}
