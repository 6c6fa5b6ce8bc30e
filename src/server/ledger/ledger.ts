import { BatchRequestSchema, type BatchSubmissionResponse } from '../../domain/batch.ts';
import { DeviceCommandSchema, type StatusRecord } from '../../domain/command.ts';
import type { LedgerKind, LedgerOutcome } from '../../domain/ledger.ts';
import { LedgerOutcomeSchema } from '../../domain/ledger.ts';
import { ProblemError } from '../http/problem.ts';
import type { Session } from '../session/session-store.ts';
import type { DevicesSite, SiteDirectory } from '../upstream/site-directory.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import { BatchConfirmations, acceptedBatchOutcome, batchAnswerOf } from './batch-confirmation.ts';
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
import { findSubmittedCommands, type UnsettledSubmission } from './reconcile.ts';

/** What the ledger keeps of an accepted answer: the outcome, the answer, the IDs it names. */
interface Acceptance {
  outcome: LedgerOutcome;
  status: number;
  body: unknown;
  commandId?: string | undefined;
  batchCommandId?: string | undefined;
}

/**
 * What the ledger records of each kind's accepted answer (the adapter's product answer): a
 * submission its command ID, a batch its batch ID and its devices to confirm (none of their
 * commands named yet), a batch cancel its results; the others their status.
 */
function acceptanceOf(intent: LedgerIntent, status: number, value: unknown): Acceptance {
  switch (intent.kind) {
    case 'submit': {
      const accepted = value as { id: string };
      return {
        status,
        body: value,
        outcome: { status, commands: [{ deviceId: intent.deviceId, id: accepted.id }] },
        commandId: accepted.id,
      };
    }
    case 'batch': {
      const accepted = value as { batchCommandId: string; timestamp: string };
      const outcome = acceptedBatchOutcome(status, intent.batch.devices);
      return {
        status,
        outcome,
        batchCommandId: accepted.batchCommandId,
        body: batchAnswerOf(
          { batchCommandId: accepted.batchCommandId, completedAt: null, createdAt: new Date() },
          outcome,
          accepted.timestamp,
        ),
      };
    }
    case 'batchCancel': {
      const answer = value as { results: LedgerOutcome['results'] };
      return { status, body: value, outcome: { status, results: answer.results ?? [] } };
    }
    default:
      return { status, body: value, outcome: { status } };
  }
}

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
  readonly #confirmations: BatchConfirmations;

  /**
   * @param options.upstream the upstream adapter: the history query reconciles unknown outcomes
   *   and finds a batch's device commands.
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
    this.#confirmations = new BatchConfirmations({
      store: options.store,
      upstream: options.upstream,
      now: options.now,
    });
  }

  get store(): LedgerStore {
    return this.#store;
  }

  /**
   * Looks for the device commands of batch entry `row` not found yet (at most every few seconds
   * per entry, unless `force`), and returns the records found by this look; the entry's outcome
   * and answer then name them (docs/architecture.md, Ledger: batches).
   *
   * @throws ProblemError when a history cannot be read.
   */
  confirmBatch(
    row: LedgerRow,
    session: Session,
    options: { force?: boolean } = {},
  ): ReturnType<BatchConfirmations['confirm']> {
    return this.#confirmations.confirm(row, session, actorOf(session), options);
  }

  /**
   * `records` of `deviceId` with the batch each was sent in, where one of `session`'s batches
   * found it (the vendor's records name none).
   */
  async withBatches(
    session: Session,
    deviceId: string,
    records: StatusRecord[],
  ): Promise<StatusRecord[]> {
    if (records.length === 0) return records;
    const batches = await this.#store.batchOfCommands(actorOf(session), deviceId);
    if (batches.size === 0) return records;
    return records.map((record) => {
      const batchCommandId = batches.get(record.id);
      return batchCommandId ? { ...record, batchCommandId } : record;
    });
  }

  /**
   * {@link confirmBatch} of the batch entry written under `idempotencyKey` by `session`'s client
   * (a fleet job's batch): what the entry answers now, and the records found by this look.
   * Undefined when there is no such batch entry.
   *
   * @throws ProblemError when a history cannot be read.
   */
  async confirmBatchByKey(
    session: Session,
    idempotencyKey: string,
    options: { force?: boolean } = {},
  ): Promise<{ answer: BatchSubmissionResponse; found: Map<string, StatusRecord> } | undefined> {
    const actor = actorOf(session);
    const row = await this.#store.findByKey(actor, idempotencyKey);
    if (!row || row.kind !== 'batch' || row.state !== 'succeeded') return undefined;
    const found = await this.#confirmations.confirm(row, session, actor, options);
    const now = (await this.#store.findById(row.id)) ?? row;
    const outcome = LedgerOutcomeSchema.safeParse(now.outcome);
    if (!outcome.success) return undefined;
    return { answer: batchAnswerOf(now, outcome.data), found };
  }

  /**
   * Brings the batches among `rows` that are still confirming up to date (each at most every few
   * seconds), waiting at most `waitMs`; returns whether any was looked at (then re-read them).
   * A failed look is left for the next read.
   */
  async confirmListed(
    rows: readonly LedgerRow[],
    session: Session,
    waitMs = 2_000,
  ): Promise<boolean> {
    const due = rows.filter((row) => BatchConfirmations.isConfirming(row));
    if (due.length === 0) return false;
    const looks = Promise.all(
      due.map((row) =>
        this.confirmBatch(row, session).then(
          (found) => found.size > 0,
          () => false,
        ),
      ),
    );
    try {
      return (await withDeadline(looks, waitMs)).some(Boolean);
    } catch {
      return true;
    }
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
   *   `idempotency_in_progress` or `window_unsettled`; 503 `reconciliation_pending`.
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
        'This change reuses the resend key of a different change, so it was not sent. Reload the page and send it again.',
      );
    const nowMs = this.#now();
    const leaseMs = row.leaseUntil?.getTime() ?? 0;
    const stored = storedAnswerOf(row);
    const retryable = mayResend(row);
    if ((row.state === 'succeeded' || row.state === 'failed') && stored) {
      if (!retryable) return { answer: replayOf(row, stored), replayed: true };
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
   * Looks the submission up in the histories (docs/decisions/006, section 5); when found,
   * completes the entry and returns the answer it now replays: a submission its command, a batch
   * the commands found (the others go on being looked for; a batch settled so has no batch ID).
   * Undefined when nothing was found (nothing written).
   *
   * @throws ProblemError 503 `reconciliation_pending` when a history cannot be read.
   */
  async #reconcile(
    row: LedgerRow,
    session: Session,
    submission: UnsettledSubmission,
  ): Promise<StoredAnswer | undefined> {
    let found;
    try {
      found = await findSubmittedCommands(
        (deviceId, range) => this.#upstream.history(session, deviceId, range),
        submission,
        row.createdAt.getTime(),
        (deviceId) => this.#store.knownCommandIds(actorOf(session), deviceId, row.id),
      );
    } catch (error) {
      // The cause's code, not its words: those may be the vendor's own message.
      const cause = error instanceof ProblemError ? ` (${error.problem.code})` : '';
      throw new ProblemError(
        503,
        'reconciliation_pending',
        `An earlier submission for this device and window has an unknown outcome, and the command history could not be read to settle it${cause}. Nothing was sent; try again in a moment.`,
        { headers: { 'retry-after': '5' } },
      );
    }
    if (found.size === 0) return undefined;
    const nowIso = new Date(this.#now()).toISOString();
    const commands = submission.deviceIds.flatMap((deviceId) => {
      const record = found.get(deviceId);
      return record ? [{ deviceId, id: record.id }] : [];
    });
    if (row.kind === 'batch') {
      const windowEnded = this.#now() >= Date.parse(submission.endTime);
      const unconfirmed = submission.deviceIds
        .filter((deviceId) => !found.has(deviceId))
        .map((deviceId) => ({
          deviceId,
          state: windowEnded ? ('notFound' as const) : ('confirming' as const),
        }));
      const outcome: LedgerOutcome = {
        status: 202,
        commands,
        unconfirmed,
        confirmation:
          unconfirmed.length === 0 ? 'confirmed' : windowEnded ? 'incomplete' : 'confirming',
        reconciled: 'found',
      };
      return this.#complete(row, {
        state: 'succeeded',
        outcome,
        answer: jsonAnswer(202, batchAnswerOf({ ...row, batchCommandId: null }, outcome, nowIso)),
      });
    }
    const first = commands[0];
    return this.#complete(row, {
      state: 'succeeded',
      outcome: { status: 202, commands, reconciled: 'found' },
      answer: jsonAnswer(202, { id: first?.id ?? '', message: RECONCILED, timestamp: nowIso }),
      commandId: first?.id,
    });
  }

  /** One upstream call for an entry held by this call (written or claimed). */
  async #attempt(row: LedgerRow, intent: LedgerIntent): Promise<StoredAnswer> {
    const called = (await intent.send()) as CallResult<unknown>;
    const result: CallResult<Acceptance> =
      called.kind === 'accepted'
        ? { ...called, value: acceptanceOf(intent, called.status, called.value) }
        : called;
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
    const answer = await this.#settle(row, result, lateSite);
    // A batch just accepted: its devices' commands are looked for at once, beside the answer.
    if (intent.kind === 'batch' && result.kind === 'accepted') {
      const settled = await this.#store.findById(row.id);
      if (settled)
        void this.confirmBatch(settled, intent.session, { force: true }).catch(() => undefined);
    }
    return answer;
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
        outcome: result.value.outcome,
        answer: jsonAnswer(result.value.status, result.value.body),
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

/**
 * The answer a known key replays: the stored one, but for a batch the commands found since
 * (its outcome as it stands now).
 */
function replayOf(row: LedgerRow, stored: StoredAnswer): StoredAnswer {
  if (row.kind !== 'batch' || stored.status !== 202) return stored;
  const outcome = LedgerOutcomeSchema.safeParse(row.outcome);
  if (!outcome.success) return stored;
  const body = stored.body as { timestamp?: unknown } | undefined;
  return jsonAnswer(
    202,
    batchAnswerOf(
      row,
      outcome.data,
      typeof body?.timestamp === 'string' ? body.timestamp : undefined,
    ),
  );
}
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
