import { z } from 'zod';
import {
  BatchCancelResponseSchema,
  BatchRequestSchema,
  BatchSubmissionResponseSchema,
} from '../../domain/batch.ts';
import { DeviceCommandSchema, SubmissionResponseSchema } from '../../domain/command.ts';
import type { LedgerKind, LedgerOutcome } from '../../domain/ledger.ts';
import { ProblemError } from '../http/problem.ts';
import type { Session } from '../session/session-store.ts';
import type { DevicesSite, SiteDirectory } from '../upstream/site-directory.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import { settleCall, type CallResult } from '../upstream/upstream-answers.ts';
import {
  inProgress,
  jsonAnswer,
  problemAnswer,
  unknownOutcome,
  type LedgerAnswer,
  type StoredAnswer,
} from './ledger-answers.ts';
import { devicesOf, fingerprintOf, subjectOf, type LedgerIntent } from './ledger-intent.ts';
import {
  mayResend,
  storedAnswerOf,
  type Completion,
  type LedgerActor,
  type LedgerRow,
  type LedgerStore,
} from './ledger-store.ts';
import { reconcileSubmission, type UnsettledSubmission } from './reconcile.ts';

/** What the ledger keeps of an accepted answer: the outcome and the IDs it names. */
interface Acceptance {
  outcome: LedgerOutcome;
  commandId?: string;
  batchCommandId?: string;
}

/**
 * How each upstream call's accepted answer is read (docs/architecture.md, Budgets: the BFF parses
 * only the outcomes it records). Submissions and batches must name what they created; the rest
 * is recorded by status, its body kept as it came. (Connection changes call no upstream
 * operation: `connection-audit.ts` records them.)
 */
const ACCEPTANCE: Record<LedgerIntent['kind'], z.ZodType<Acceptance>> = {
  submit: SubmissionResponseSchema.transform((accepted) => ({
    outcome: {},
    commandId: accepted.id,
  })),
  cancel: z.unknown().transform(() => ({ outcome: {} })),
  batch: BatchSubmissionResponseSchema.transform((accepted) => ({
    outcome: { commands: accepted.commands },
    batchCommandId: accepted.batchCommandId,
  })),
  batchCancel: BatchCancelResponseSchema.transform((answer) => ({
    outcome: { results: answer.results },
  })),
  bind: z.unknown().transform(() => ({ outcome: {} })),
  unbind: z.unknown().transform(() => ({ outcome: {} })),
};

/** Test-only hooks; `afterUpstreamAnswer` runs between the upstream's answer and the ledger write. */
export interface LedgerHooks {
  afterUpstreamAnswer?: (kind: LedgerKind) => void;
}

/** Where the ledger writes what it could not do but need not refuse for (pino's `warn` fits). */
export interface LedgerLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * How long writing an entry waits for the site of its devices, ms. The site list is usually
 * cached; a slow or failing one delays a submission by at most this and never refuses it.
 */
export const SITE_LOOKUP_WAIT_MS = 1_000;

/**
 * Runs the state-changing calls through the command ledger: idempotency by `Idempotency-Key`
 * (same key and request, same answer, one upstream call; same key, other request: 422; still
 * under way: 409), reconciliation of unsettled submissions on the same device and window before
 * sending, the intent written before the upstream call and the outcome after it. Submissions are
 * never re-sent blindly. Several BFF instances may share one ledger: an entry belongs to the
 * call holding its lease.
 */
export class Ledger {
  readonly #store: LedgerStore;
  readonly #upstream: UpstreamApi;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #hooks: LedgerHooks;
  readonly #sites: SiteDirectory;
  readonly #siteLookupWaitMs: number;
  readonly #log: LedgerLog;

  /**
   * @param options.upstream the upstream API: the history query reconciles unknown outcomes.
   * @param options.sites where the site and time zone of an entry's devices are looked up.
   * @param options.now clock, epoch ms.
   * @param options.leaseMs how long an entry belongs to the call that wrote or claimed it, ms.
   * @param options.siteLookupWaitMs default {@link SITE_LOOKUP_WAIT_MS}.
   */
  constructor(options: {
    store: LedgerStore;
    upstream: UpstreamApi;
    sites: SiteDirectory;
    now: () => number;
    leaseMs: number;
    siteLookupWaitMs?: number | undefined;
    log: LedgerLog;
    hooks?: LedgerHooks | undefined;
  }) {
    this.#store = options.store;
    this.#upstream = options.upstream;
    this.#sites = options.sites;
    this.#now = options.now;
    this.#leaseMs = options.leaseMs;
    this.#siteLookupWaitMs = options.siteLookupWaitMs ?? SITE_LOOKUP_WAIT_MS;
    this.#log = options.log;
    this.#hooks = options.hooks ?? {};
  }

  get store(): LedgerStore {
    return this.#store;
  }

  /**
   * Runs one state-changing call: writes its intent, calls `intent.send()` at most once, writes
   * the outcome, and returns the answer to send. With an `Idempotency-Key` seen before, the answer
   * stored then is returned (`replayed`), or the unsettled entry is settled first. A new entry
   * records the site and time zone of its devices when the site list tells them in time, and the
   * entry it undoes when `intent.undoOf` names one.
   *
   * @returns the upstream's answer, or a problem answer (4xx refusal, `outcome_unknown` 5xx),
   *   fresh or replayed; the caller sends it as it is.
   * @throws ProblemError when nothing was sent: 400 `invalid_undo_of`; 422
   *   `idempotency_key_reused` (also for the same key with another `undoOf`); 409
   *   `idempotency_in_progress`, `window_unsettled` or `reconciliation_ambiguous`; 503
   *   `reconciliation_pending`.
   */
  async run(intent: LedgerIntent): Promise<LedgerAnswer> {
    const actor = actorOf(intent.session);
    const fingerprint = fingerprintOf(intent);
    if (intent.idempotencyKey) {
      const existing = await this.#store.findByKey(actor, intent.idempotencyKey);
      if (existing) return this.#resume(existing, fingerprint, intent);
    }
    const undoOf =
      intent.undoOf === undefined ? undefined : await this.#undoTarget(actor, intent.undoOf);
    // Looked up while the blocking entries are settled; never rejects.
    const site = this.#siteOfIntent(intent, actor);
    const submission = submissionOf(intent);
    if (submission) await this.#settleBlocking(actor, intent.session, submission);
    const subject = { ...subjectOf(intent), ...(await site) };
    const nowMs = this.#now();
    const { created, row } = await this.#store.begin({
      kind: intent.kind,
      actor,
      subject,
      idempotencyKey: intent.idempotencyKey,
      undoOf,
      requestHash: fingerprint,
      nowMs,
      leaseUntilMs: nowMs + this.#leaseMs,
    });
    if (!created) return this.#resume(row, fingerprint, intent);
    return { answer: await this.#attempt(row, intent), replayed: false };
  }

  /**
   * The ID of the entry an undo names by its `Idempotency-Key`: one of `actor`'s entries, written
   * by the same operator (docs/architecture.md, Ledger).
   *
   * @throws ProblemError 400 `invalid_undo_of` when there is none; an entry of another operator
   *   or client answers the same as an unknown key, so keys cannot be probed.
   */
  async #undoTarget(actor: LedgerActor, idempotencyKey: string): Promise<number> {
    const row = await this.#store.findByKey(actor, idempotencyKey);
    if (row && sameOperator(row, actor)) return row.id;
    throw new ProblemError(
      400,
      'invalid_undo_of',
      'The change this undo would reverse is not among your recorded changes. Nothing was sent; reload the page to see the current commands.',
    );
  }

  /** Answers a retry with a known key: replay, wait, or settle then replay or re-send. */
  async #resume(row: LedgerRow, fingerprint: string, intent: LedgerIntent): Promise<LedgerAnswer> {
    if (row.requestHash !== fingerprint)
      throw new ProblemError(
        422,
        'idempotency_key_reused',
        'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
      );
    const nowMs = this.#now();
    const leaseMs = row.leaseUntil?.getTime() ?? 0;
    const stored = storedAnswerOf(row);
    const retryable = mayResend(row);
    if ((row.state === 'succeeded' || row.state === 'failed') && stored) {
      if (!retryable) return { answer: stored, replayed: true };
    } else if (leaseMs >= nowMs) throw inProgress(leaseMs - nowMs);

    // Same fingerprint: the intent asks for what the entry recorded.
    const submission = submissionOf(intent);
    if (submission) {
      const settled = await this.#reconcile(row, intent.session, submission);
      if (settled) return { answer: settled, replayed: true };
    }
    if (!(await this.#store.claim(row, nowMs, nowMs + this.#leaseMs))) throw inProgress(1000);
    return { answer: await this.#attempt(row, intent), replayed: false };
  }

  /** Settles every unsettled submission on the devices and window of `submission`. */
  async #settleBlocking(
    actor: LedgerActor,
    session: Session,
    submission: UnsettledSubmission,
  ): Promise<void> {
    const rows = await this.#store.unsettled(actor, submission.deviceIds, submission);
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
      const rowSubmission = submissionOfRow(row);
      if (!rowSubmission) continue;
      const settled = await this.#reconcile(row, session, rowSubmission);
      if (!settled)
        await this.#complete(row, {
          state: 'failed',
          outcome: {
            reconciled: 'absent',
            error: { code: 'not_carried_out', message: NOT_CARRIED_OUT },
          },
          answer: problemAnswer(new ProblemError(409, 'not_carried_out', NOT_CARRIED_OUT)),
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
    submission: UnsettledSubmission,
  ): Promise<StoredAnswer | undefined> {
    let result;
    try {
      result = await reconcileSubmission(
        (deviceId, range) => this.#upstream.historyRecords(session, deviceId, range),
        submission,
        (deviceId) => this.#store.knownCommandIds(actorOf(session), deviceId),
      );
    } catch (error) {
      // The cause's code, not its words: those may be the upstream's own message.
      const cause = error instanceof ProblemError ? ` (${error.problem.code})` : '';
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
    return this.#complete(row, {
      state: 'succeeded',
      outcome: { status: 202, commands: result.commands, reconciled: 'found' },
      answer: jsonAnswer(202, body),
      commandId: row.kind === 'submit' ? first?.id : undefined,
      batchCommandId: result.batchCommandId,
    });
  }

  /** One upstream call for an entry held by this call (written or claimed). */
  async #attempt(row: LedgerRow, intent: LedgerIntent): Promise<StoredAnswer> {
    const result = await settleCall(intent.send, ACCEPTANCE[intent.kind]);
    if (result.kind === 'accepted' || result.status !== undefined)
      this.#hooks.afterUpstreamAnswer?.(intent.kind);
    // A batch the ledger did not know: its answer names the devices, so their site.
    const results = result.kind === 'accepted' ? result.value.outcome.results : undefined;
    const lateSite =
      results && !row.siteId && !row.timeZone
        ? await this.#siteOfDevices(
            intent,
            results.map((r) => r.deviceId),
          )
        : {};
    return this.#settle(row, result, lateSite);
  }

  /**
   * The site and zone of the devices `intent` acts on; a batch cancel's are its batch's. `{}`
   * when they are unknown, when the lookup fails or takes longer than the wait (logged).
   */
  async #siteOfIntent(intent: LedgerIntent, actor: LedgerActor): Promise<DevicesSite> {
    if (intent.kind !== 'batchCancel') return this.#siteOfDevices(intent, devicesOf(intent));
    try {
      const batch = await this.#store.findBatch(actor, intent.batchCommandId);
      if (batch?.siteId || batch?.timeZone)
        return {
          ...(batch.siteId ? { siteId: batch.siteId } : {}),
          ...(batch.timeZone ? { timeZone: batch.timeZone } : {}),
        };
      return this.#siteOfDevices(intent, batch?.deviceIds ?? []);
    } catch (error) {
      return this.#siteUnknown(intent, error);
    }
  }

  /** {@link SiteDirectory.siteOf}, waited for at most the lookup wait; `{}` on failure. */
  async #siteOfDevices(intent: LedgerIntent, deviceIds: readonly string[]): Promise<DevicesSite> {
    if (deviceIds.length === 0) return {};
    try {
      return await withDeadline(
        this.#sites.siteOf(intent.session, deviceIds),
        this.#siteLookupWaitMs,
      );
    } catch (error) {
      return this.#siteUnknown(intent, error);
    }
  }

  #siteUnknown(intent: LedgerIntent, error: unknown): DevicesSite {
    this.#log.warn(
      {
        ...(intent.requestId ? { reqId: intent.requestId } : {}),
        kind: intent.kind,
        ...(error instanceof ProblemError ? { code: error.problem.code } : {}),
        reason: error instanceof Error ? error.message : String(error),
      },
      'ledger entry recorded without its site and time zone: the site list could not be read in time',
    );
    return {};
  }

  /**
   * Writes what the upstream call came to and returns the answer to send: succeeded with the
   * upstream's answer; failed with its refusal; unknown (leased, to be reconciled) with
   * `outcome_unknown`.
   */
  #settle(
    row: LedgerRow,
    result: CallResult<Acceptance>,
    lateSite: DevicesSite = {},
  ): Promise<StoredAnswer> {
    if (result.kind === 'accepted')
      return this.#complete(row, {
        state: 'succeeded',
        outcome: { status: result.status, ...result.value.outcome },
        answer: jsonAnswer(result.status, result.body),
        commandId: result.value.commandId,
        batchCommandId: result.value.batchCommandId,
        ...lateSite,
      });
    const { problem } = result;
    const outcome: LedgerOutcome = {
      ...(result.status === undefined ? {} : { status: result.status }),
      error: { code: problem.problem.code, message: problem.message },
    };
    if (result.kind === 'refused')
      return this.#complete(row, { state: 'failed', outcome, answer: problemAnswer(problem) });
    return this.#complete(row, {
      state: 'unknown',
      outcome,
      answer: problemAnswer(unknownOutcome(problem)),
      leaseUntilMs: this.#now() + this.#leaseMs,
    });
  }

  /** Writes an entry's outcome (now) and returns its answer. */
  async #complete(row: LedgerRow, completion: Omit<Completion, 'nowMs'>): Promise<StoredAnswer> {
    await this.#store.complete(row.id, { ...completion, nowMs: this.#now() });
    return completion.answer;
  }
}

const RECONCILED = 'Accepted: confirmed from the command history after the first answer was lost';
const NOT_CARRIED_OUT =
  'The upstream did not carry this submission out (its outcome was unknown and the command history has no such command). Submit it again if it is still wanted.';

/** `promise`, or a rejection once `ms` have passed without it settling. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * True when `row` was written by `actor`'s operator: the same issuer and subject for a company
 * sign-in (a display name may be shared or change), else the same typed name.
 */
function sameOperator(row: LedgerRow, actor: LedgerActor): boolean {
  if (actor.operator || row.operatorSubject !== null)
    return (
      row.operatorIssuer === (actor.operator?.issuer ?? null) &&
      row.operatorSubject === (actor.operator?.subject ?? null)
    );
  return (row.operatorName ?? undefined) === (actor.operatorName ?? undefined);
}

function actorOf(session: Session): LedgerActor {
  const { operator } = session;
  return {
    region: session.region,
    clientId: session.clientId,
    operatorName: session.operatorName,
    ...(operator
      ? {
          operator: {
            issuer: operator.issuer,
            subject: operator.subject,
            ...(operator.name ? { name: operator.name } : {}),
            ...(operator.email ? { email: operator.email } : {}),
          },
        }
      : {}),
  };
}

/** The devices, window and control of a submission or batch intent; undefined for other kinds. */
function submissionOf(intent: LedgerIntent): UnsettledSubmission | undefined {
  if (intent.kind === 'submit')
    return { deviceIds: [intent.deviceId], ...intent.command, batch: false };
  if (intent.kind === 'batch')
    return { deviceIds: intent.batch.devices, ...intent.batch.command, batch: true };
  return undefined;
}

/** {@link submissionOf} of a stored entry, from its recorded request. */
function submissionOfRow(row: LedgerRow): UnsettledSubmission | undefined {
  if (row.kind === 'submit' && row.deviceId) {
    const command = DeviceCommandSchema.safeParse(row.request);
    if (!command.success) return undefined;
    return { deviceIds: [row.deviceId], ...command.data, batch: false };
  }
  if (row.kind === 'batch') {
    const batch = BatchRequestSchema.safeParse(row.request);
    if (!batch.success) return undefined;
    return { deviceIds: batch.data.devices, ...batch.data.command, batch: true };
  }
  return undefined;
}
