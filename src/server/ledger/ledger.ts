import type { BatchSubmissionResponse } from '#domain/batch.ts';
import type { StatusRecord } from '#domain/command.ts';
import type { LedgerKind, LedgerOutcome } from '#domain/ledger.ts';
import { LedgerOutcomeSchema } from '#domain/ledger.ts';
import { ProblemError } from '../http/problem.ts';
import type { Session } from '../session/session-store.ts';
import type { DevicesSite, SiteDirectory } from '../upstream/site-directory.ts';
import type { UpstreamApi } from '../upstream/upstream-api.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import { batchAnswerOf } from './batch-confirmation.ts';
import {
  inProgress,
  jsonAnswer,
  problemAnswer,
  unknownOutcome,
  type LedgerAnswer,
  type StoredAnswer,
} from './ledger-answers.ts';
import {
  acceptanceOf,
  devicesOf,
  fingerprintOf,
  recordAccepted,
  subjectOf,
  type Acceptance,
  type HistoryReader,
  type LedgerIntent,
} from './ledger-intent.ts';
import {
  mayResend,
  storedAnswerOf,
  type Completion,
  type LedgerActor,
  type LedgerRow,
} from './ledger-rows.ts';
import type { LedgerStore } from './ledger-store.ts';
import { LedgerReconciler, submissionOf, type LedgerLog } from './ledger-reconciler.ts';
import type { DeviceCommandsRecorder } from './device-commands-recorder.ts';
import { actorOf, authorOf } from '#domain/account.ts';

/** Test-only. */
export interface LedgerHooks {
  afterUpstreamAnswer?: (kind: LedgerKind) => void;
}

/** A slow site list delays a submission by at most this and never refuses it, ms. */
export const SITE_LOOKUP_WAIT_MS = 1_000;

/**
 * Runs the state-changing calls through the command ledger (docs/architecture.md, Ledger):
 * idempotency by `Idempotency-Key`, reconciliation of unsettled submissions before sending, the
 * intent written before the call and the outcome after. Submissions are never re-sent blindly.
 * An entry belongs to the call holding its lease.
 */
export class Ledger {
  readonly #store: LedgerStore;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #hooks: LedgerHooks;
  readonly #sites: SiteDirectory;
  readonly #siteLookupWaitMs: number;
  readonly #log: LedgerLog;
  readonly #recorder: DeviceCommandsRecorder | undefined;
  readonly #reconciler: LedgerReconciler;

  /**
   * @param options.leaseMs how long an entry belongs to the call that wrote or claimed it, ms.
   * @param options.history default the upstream's own, unbudgeted (decision 007).
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
    recorder?: DeviceCommandsRecorder | undefined;
    history?: HistoryReader | undefined;
  }) {
    this.#recorder = options.recorder;
    this.#store = options.store;
    this.#sites = options.sites;
    this.#now = options.now;
    this.#leaseMs = options.leaseMs;
    this.#siteLookupWaitMs = options.siteLookupWaitMs ?? SITE_LOOKUP_WAIT_MS;
    this.#log = options.log;
    this.#hooks = options.hooks ?? {};
    this.#reconciler = new LedgerReconciler({
      store: options.store,
      now: options.now,
      log: options.log,
      recorder: options.recorder,
      history:
        options.history ??
        ((caller, deviceId, query) => options.upstream.history(caller, deviceId, query)),
    });
  }

  get store(): LedgerStore {
    return this.#store;
  }

  /** The vendor's records name no batch. */
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

  /** Reads nothing upstream; undefined when there is no such accepted batch entry. */
  async batchAnswerByKey(
    session: Session,
    idempotencyKey: string,
  ): Promise<BatchSubmissionResponse | undefined> {
    const row = await this.#store.findByKey(actorOf(session), idempotencyKey);
    if (!row || row.kind !== 'batch' || row.state !== 'succeeded') return undefined;
    const outcome = LedgerOutcomeSchema.safeParse(row.outcome);
    if (!outcome.success) return undefined;
    const stored = storedAnswerOf(row);
    const timestamp = (stored?.body as { timestamp?: unknown } | undefined)?.timestamp;
    return batchAnswerOf(row, outcome.data, typeof timestamp === 'string' ? timestamp : undefined);
  }

  /**
   * Calls `intent.send()` at most once; a known key replays its stored answer, or settles the entry
   * first.
   *
   * @returns the answer to send, fresh or replayed.
   * @throws ProblemError when nothing was sent: 400 `invalid_undo_of`; 422
   *   `idempotency_key_reused`; 409 `idempotency_in_progress` or `window_unsettled`; 503
   *   `reconciliation_pending` (429 when the device has no call left to read its history).
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
    // Never rejects.
    const site = this.#siteOfIntent(intent, actor);
    const submission = submissionOf(intent);
    if (submission) await this.#reconciler.settleBlocking(actor, intent, submission);
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

  /** @throws ProblemError 400 `invalid_undo_of` as {@link run} does. */
  async checkUndoOf(session: Session, undoOf: string): Promise<void> {
    await this.#undoTarget(actorOf(session), undoOf);
  }

  /** Empty when the ledger does not know the batch. */
  async batchDevices(session: Session, batchCommandId: string): Promise<string[]> {
    const row = await this.#store.findBatch(actorOf(session), batchCommandId);
    return row?.deviceIds ?? [];
  }

  /**
   * @throws ProblemError 400 `invalid_undo_of`; another operator's entry answers as an unknown key,
   *   so keys cannot be probed.
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

  async #resume(row: LedgerRow, fingerprint: string, intent: LedgerIntent): Promise<LedgerAnswer> {
    if (row.requestHash !== fingerprint)
      throw new ProblemError(
        422,
        'idempotency_key_reused',
        'This attempt was already used for a different change, so it was not sent. Reload the page and make the change again.',
      );
    const nowMs = this.#now();
    const leaseMs = row.leaseUntil?.getTime() ?? 0;
    const stored = storedAnswerOf(row);
    const retryable = mayResend(row);
    if ((row.state === 'succeeded' || row.state === 'failed') && stored) {
      if (!retryable) return { answer: replayOf(row, stored), replayed: true };
    } else if (leaseMs >= nowMs) throw inProgress(leaseMs - nowMs);

    // Last try certainly not acted on: re-send without reading history, which would spend one of the
    // device's calls for nothing (decision 007); the vendor refuses a duplicate as overlapping.
    const submission = retryable ? undefined : submissionOf(intent);
    if (submission) {
      const settled = await this.#reconciler.reconcile(row, intent, submission);
      if (settled) return { answer: settled, replayed: true };
    }
    if (!(await this.#store.claim(row, nowMs, nowMs + this.#leaseMs))) throw inProgress(1000);
    return { answer: await this.#attempt(row, intent), replayed: false };
  }

  async #attempt(row: LedgerRow, intent: LedgerIntent): Promise<StoredAnswer> {
    const called = (await intent.send()) as CallResult<unknown>;
    const result: CallResult<Acceptance> =
      called.kind === 'accepted'
        ? { ...called, value: acceptanceOf(intent, called.status, called.value) }
        : called;
    if (result.kind === 'accepted' || result.status !== undefined)
      this.#hooks.afterUpstreamAnswer?.(intent.kind);
    const results = result.kind === 'accepted' ? result.value.outcome.results : undefined;
    const lateSite =
      results && !row.siteId && !row.timeZone
        ? await this.#siteOfDevices(
            intent,
            results.map((r) => r.deviceId),
          )
        : {};
    const answer = await this.#settle(row, result, lateSite);
    if (result.kind === 'accepted') await this.#record(row, intent, result.value.body);
    return answer;
  }

  /** Never fails the change: the device's next read brings the read model up to date. */
  async #record(row: LedgerRow, intent: LedgerIntent, body: unknown): Promise<void> {
    const recorder = this.#recorder;
    if (!recorder) return;
    const account = { region: intent.session.region, clientId: intent.session.clientId };
    const options = { madeBy: authorOf(intent.session) };
    try {
      await recordAccepted(recorder, intent, body, { entryId: row.id, account, options });
    } catch (error) {
      this.#log.warn(
        {
          ...(intent.requestId ? { reqId: intent.requestId } : {}),
          kind: intent.kind,
          reason: error instanceof Error ? error.message : String(error),
        },
        'read model not told of an accepted change; the device is read again later',
      );
    }
  }

  /** `{}` when unknown, or the lookup fails or is slow (logged). */
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

  async #complete(row: LedgerRow, completion: Omit<Completion, 'nowMs'>): Promise<StoredAnswer> {
    await this.#store.complete(row.id, { ...completion, nowMs: this.#now() });
    return completion.answer;
  }
}

/** For a batch, the commands found since. */
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
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Issuer and subject for a company sign-in: a display name may be shared or change. */
function sameOperator(row: LedgerRow, actor: LedgerActor): boolean {
  if (actor.operator || row.operatorSubject !== null)
    return (
      row.operatorIssuer === (actor.operator?.issuer ?? null) &&
      row.operatorSubject === (actor.operator?.subject ?? null)
    );
  return (row.operatorName ?? undefined) === (actor.operatorName ?? undefined);
}
