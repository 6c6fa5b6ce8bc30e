import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  BudgetTooTightDetailsSchema,
  ChangeWouldWaitDetailsSchema,
  ProblemSchema,
} from '#domain/errors.ts';
import { CHANGE_LEAD_TIME_MS } from '#domain/lead-time.ts';
import { deviceBudgetWords } from '#domain/device-budget.ts';
import {
  ChangeAlreadyQueuedDetailsSchema,
  devicesOfChange,
  type ChangeStep,
  stepIdempotencyKey,
  type DeviceChangeAnswer,
  type DeviceChangeRequest,
  type QueuedAnswer,
  type QueuedChange,
  type QueuedChangeStatus,
  type QueuedReason,
} from '#domain/queued-change.ts';
import { siteClockWords } from '#domain/time.ts';
import { QUEUED_CHANGE_KIND_WORDS } from '#domain/words.ts';
import type { ChangeQueue } from '../budget/change-queue.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import { statusOf, type QueuedChangeRow } from '../budget/queued-change-rows.ts';
import { accountOf, actorOf, personOf } from '#domain/account.ts';
import { readIdempotencyKey } from '../http/idempotency-key.ts';
import { PROBLEM_CONTENT_TYPE, ProblemError } from '../http/problem.ts';
import { readUndoOf } from '../http/undo-of.ts';
import { budgetedSend } from '../ledger/budgeted-send.ts';
import { requestFingerprint } from '../ledger/idempotency.ts';
import { type LedgerAnswer } from '../ledger/ledger-answers.ts';
import { fingerprintOf, type LedgerIntent } from '../ledger/ledger-intent.ts';
import { mayResend } from '../ledger/ledger-store.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { QueueOutcome } from '../budget/queued-change-store.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { Session } from '../session/session-store.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import type { KnownCommandSource } from '../upstream/upstream-api.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import { checkChangeSteps } from './change-checks.ts';
import { sendLedgerAnswer, type Change } from './changes.ts';
import { readDeviceVersion, type DeviceVersions } from './device-version.ts';

/** How long a route waits (real time) for a change due now to be sent before answering 202. */
export const SETTLE_WAIT_MS = 15_000;
/** How long the words of a refusal wait for the site's clock before using UTC, ms. */
const SITE_ZONE_WAIT_MS = 500;

/**
 * The sealing context of a queued change's client secret, so only that change's row opens it;
 * also its caller's token cache key, apart from every session's and fleet job's (`actingFor`).
 */
export function changeSealingContext(changeId: string): string {
  return `queued-change:${changeId}`;
}

/** What the write path needs. */
export interface WritePathDeps {
  ledger: Ledger;
  budget: DeviceBudgetStore;
  queue: ChangeQueue;
  box: SecretBox;
  sites: SiteDirectory;
  /** The upstream's clock, epoch ms, on which the budget counts. */
  upstreamNow: () => number;
  /** Where a device's version and what changed since come from (the read model); none: no check. */
  versions?: DeviceVersions | undefined;
  /** The commands the BFF knows (the read model), a new window is checked against; none: no check. */
  knownCommands?: KnownCommandSource | undefined;
  /** How long a route waits for a change due now (default {@link SETTLE_WAIT_MS}). */
  settleWaitMs?: number | undefined;
}

/**
 * Every change to a device goes through its budget of upstream calls
 * (docs/decisions/007-device-call-budget.md, sections 1, 2 and 5):
 * - one call (a submission, a cancel, a batch, a batch cancel; {@link WritePath.single}) takes a
 *   slot of each of its devices before the ledger sends it, and the slot is settled at the
 *   answer's time; no slot now, or a 429 from the vendor (the devices are then marked busy until
 *   its `Retry-After`), queues the change under the request's key instead, answered 202 with when
 *   it goes;
 * - a change of several steps (a replace, an undo; {@link WritePath.planned}) is planned as a whole
 *   before its first call, refused 409 `budget_too_tight` when its last call would miss the lead
 *   time before its window, else queued and, when due now, sent at once;
 * - a change made against an older version of its device (`Powerdeck-Device-Version`) is refused
 *   409 `device_changed` with what another person changed since;
 * - a new change is checked before it takes a slot or is queued (`checkChangeSteps`): a window
 *   that has already ended, or that overlaps a command the read model knows, is refused at once
 *   with no call, as it would be if the device had calls to spare.
 */
export class WritePath {
  readonly #ledger: Ledger;
  readonly #budget: DeviceBudgetStore;
  readonly #queue: ChangeQueue;
  readonly #box: SecretBox;
  readonly #sites: SiteDirectory;
  readonly #upstreamNow: () => number;
  readonly #versions: DeviceVersions | undefined;
  readonly #known: KnownCommandSource | undefined;
  readonly #settleWaitMs: number;

  constructor(deps: WritePathDeps) {
    this.#ledger = deps.ledger;
    this.#budget = deps.budget;
    this.#queue = deps.queue;
    this.#box = deps.box;
    this.#sites = deps.sites;
    this.#upstreamNow = deps.upstreamNow;
    this.#versions = deps.versions;
    this.#known = deps.knownCommands;
    this.#settleWaitMs = deps.settleWaitMs ?? SETTLE_WAIT_MS;
  }

  get queue(): ChangeQueue {
    return this.#queue;
  }

  /**
   * Answers a change of one upstream call (see the class): a known `Idempotency-Key` is the
   * ledger's (replayed or settled) or the queue's (where its change stands); a new one takes a
   * slot of each device and goes through the ledger, or is queued.
   *
   * @throws ProblemError: 400 for a malformed header, 409 `device_changed`, `checkChangeSteps`'s
   *   refusals (422 `window_ended`, 409 `window_overlap`), the ledger's own refusals (see
   *   `Ledger.run`).
   */
  async single(
    request: FastifyRequest,
    reply: FastifyReply,
    change: Change,
  ): Promise<FastifyReply> {
    const { session } = change;
    const undoOf = readUndoOf(request.headers);
    // A change queued under no key still needs one for its step: the ledger then records it so.
    const key = readIdempotencyKey(request.headers) ?? `powerdeck:${randomUUID()}`;
    await this.#checkVersion(request, session, singleDeviceOf(change));
    const deviceIds =
      change.kind === 'batchCancel'
        ? await this.#ledger.batchDevices(session, change.batchCommandId)
        : devicesOfSingle(change);
    const intent = {
      ...change,
      idempotencyKey: key,
      undoOf,
      requestId: request.id,
    } as LedgerIntent;
    const run = async (slotIds?: number[]) => {
      const answer = await this.#runBudgeted(intent, deviceIds, slotIds);
      if (answer.answer.status === 429 && deviceIds.length > 0) {
        // The vendor said the devices are busy (another client spent their calls): the change
        // waits for them under its key rather than failing, and is never retried blind.
        const queued = await this.#queueSingle(intent, deviceIds, 'device_busy');
        if (queued) return sendQueued(reply, queued);
      }
      return sendLedgerAnswer(reply, answer);
    };
    // A batch cancel of a batch the ledger does not know names no device: nothing to reserve.
    if (deviceIds.length === 0) return run();

    const entry = await this.#ledger.entryByKey(session, key);
    if (entry && !mayResend(entry)) return run();
    const queued = await this.#queue.findByKey(actorOf(session), key);
    if (queued) return this.#answerKnownQueued(reply, queued, fingerprintOf(intent));
    // A new change: checked before it takes a slot or waits for one (a retry of a key sent
    // before is the ledger's to answer, its own command being in the read model now).
    await this.#check(session, singleChange(intent, deviceIds).steps);
    const reservation = await this.#budget.reserve({
      region: session.region,
      deviceIds,
      kind: 'control',
      nowMs: this.#upstreamNow(),
    });
    if (!reservation.granted) {
      const answer = await this.#queueSingle(
        intent,
        deviceIds,
        reservation.reason === 'changes_waiting' ? 'changes_waiting' : 'no_slot',
      );
      if (answer) return sendQueued(reply, answer);
      // The change of the same key won the race: answer where it stands.
      const known = await this.#queue.findByKey(actorOf(session), key);
      if (known) return this.#answerKnownQueued(reply, known, fingerprintOf(intent));
      throw new Error('a queued change vanished');
    }
    return run(reservation.slotIds);
  }

  /**
   * Answers `POST /api/devices/{deviceId}/changes` (see the class): plans the change's steps with
   * the device's budget, refuses it when it cannot go in time, else queues it and, when its first
   * step is due now, waits for it to be sent. With `ifLater` `refuse`, a change whose first step
   * would wait is neither queued nor sent: 409 `change_would_wait` with when it would go, so the
   * operator hears it before anything is sent.
   *
   * @throws ProblemError: 400 `invalid_undo_of`, 409 `device_changed`, `budget_too_tight`,
   *   `change_would_wait` or `window_overlap`, 422 `idempotency_key_reused` or `window_ended`.
   */
  async planned(
    request: FastifyRequest,
    reply: FastifyReply,
    session: Session,
    deviceId: string,
    body: DeviceChangeRequest,
    ifLater: 'queue' | 'refuse' = 'queue',
  ): Promise<FastifyReply> {
    const key = readIdempotencyKey(request.headers) ?? `powerdeck:${randomUUID()}`;
    await this.#checkVersion(request, session, deviceId);
    if (body.kind !== 'replace') await this.#ledger.checkUndoOf(session, body.undoOf);
    const { change, deadline } = plannedChange(deviceId, body, key);
    // A new change is checked before it is queued; a retry of one queued before is answered.
    if (!(await this.#queue.findByKey(actorOf(session), key)))
      await this.#check(session, change.steps);
    const id = randomUUID();
    const outcome = await this.#queue.enqueue({
      id,
      owner: actorOf(session),
      secretCiphertext: this.#box.seal(session.clientSecret, changeSealingContext(id)),
      change,
      deadline,
      idempotencyKey: key,
      requestHash: requestFingerprint('deviceChange', `/devices/${deviceId}/changes`, body),
      onlyIfNow: ifLater === 'refuse',
    });
    if (!outcome.queued && outcome.reason === 'budget_too_tight')
      throw await this.#tooTight(session, [deviceId], outcome.plan, outcome.earliestStartMs);
    if (!outcome.queued && outcome.reason === 'would_wait')
      throw await this.#wouldWait(session, [deviceId], outcome.plan[0] as number);
    if (!outcome.queued && outcome.reason === 'already_queued')
      throw alreadyQueued(outcome, await this.#zoneOf(session, [deviceId]));
    if (!outcome.queued && !outcome.sameRequest) throw keyReused();
    let row = outcome.row;
    if (outcome.queued && (row.nextAtMs ?? Infinity) <= this.#upstreamNow()) {
      const settled = await this.#queue.settled(actorOf(session), id, this.#settleWaitMs, {
        untilWaiting: true,
      });
      if (settled) return this.#answerPlanned(reply, session, settled);
    }
    row = (await this.#queue.findByKey(actorOf(session), key)) ?? row;
    return this.#answerPlanned(reply, session, statusOf(row));
  }

  /**
   * The ledger runs `intent`, its call taking a slot of each device: `slotIds` when the route
   * took them already, else at the moment the ledger sends (a retry of a key whose earlier try
   * was not carried out); a slot taken and not used (a replay) is given back. A 429 marks the
   * devices busy until its `Retry-After`.
   */
  async #runBudgeted(
    intent: LedgerIntent,
    deviceIds: readonly string[],
    slotIds?: number[],
  ): Promise<LedgerAnswer> {
    const call = budgetedSend({
      budget: this.#budget,
      region: intent.session.region,
      deviceIds,
      upstreamNow: this.#upstreamNow,
      call: intent.send as () => Promise<CallResult<unknown>>,
      slotIds,
    });
    try {
      return await this.#ledger.run({ ...intent, send: call.send } as LedgerIntent);
    } finally {
      await call.release();
    }
  }

  /**
   * Queues a change of one call under the intent's key (its one step's key is the same, so the
   * ledger entry an earlier try wrote is the one the step completes).
   *
   * @returns the queued answer; undefined when a change of the same key was queued first.
   * @throws ProblemError 409 `budget_too_tight` for a submission or batch whose window would
   *   start before its call could go with the lead time.
   */
  async #queueSingle(
    intent: LedgerIntent,
    deviceIds: readonly string[],
    reason: QueuedReason,
  ): Promise<QueuedAnswer | undefined> {
    const change = singleChange(intent, deviceIds);
    const window =
      intent.kind === 'submit'
        ? intent.command.startTime
        : intent.kind === 'batch'
          ? intent.batch.command.startTime
          : undefined;
    const id = randomUUID();
    const outcome = await this.#queue.enqueue({
      id,
      owner: actorOf(intent.session),
      secretCiphertext: this.#box.seal(intent.session.clientSecret, changeSealingContext(id)),
      change,
      deadline: window
        ? { windowStartMs: Date.parse(window), leadMs: CHANGE_LEAD_TIME_MS }
        : undefined,
      idempotencyKey: intent.idempotencyKey,
      requestHash: fingerprintOf(intent),
    });
    if (outcome.queued) return queuedAnswerOf(outcome.row, reason);
    if (outcome.reason === 'budget_too_tight')
      throw await this.#tooTight(intent.session, deviceIds, outcome.plan, outcome.earliestStartMs);
    if (outcome.reason === 'already_queued')
      throw alreadyQueued(outcome, await this.#zoneOf(intent.session, deviceIds));
    return undefined;
  }

  /** A retry of a key whose change is in the queue: where it stands (the same request only). */
  #answerKnownQueued(reply: FastifyReply, row: QueuedChangeRow, fingerprint: string): FastifyReply {
    if (row.requestHash !== fingerprint) throw keyReused();
    const status = statusOf(row);
    if (status.state === 'queued' || status.state === 'sending')
      return sendQueued(reply, queuedAnswerOf(row, 'no_slot'));
    // Ended without the ledger answering for it (the ledger's entry is checked first).
    if (status.state === 'withdrawn') throw withdrawn(status);
    const failedStep = status.steps.find((step) => step.state === 'failed');
    if (failedStep?.answer) return sendStepAnswer(reply, failedStep.answer);
    throw notSentProblem(status);
  }

  async #answerPlanned(
    reply: FastifyReply,
    session: Session,
    status: QueuedChangeStatus,
  ): Promise<FastifyReply> {
    switch (status.state) {
      case 'queued':
      case 'sending':
        return sendJson(reply, 202, {
          change: status,
          queued: {
            changeId: status.id,
            goesAt: status.goesAt ?? status.updatedAt,
            reason: status.steps.some((step) => step.state !== 'waiting')
              ? 'no_slot'
              : await this.#reasonOf(session, status),
            deviceIds: status.deviceIds,
          },
        } satisfies DeviceChangeAnswer);
      case 'sent':
        return sendJson(reply, 200, sentAnswerOf(status));
      case 'withdrawn':
        throw withdrawn(status);
      case 'failed': {
        if (status.outcome?.failure === 'budget_too_tight' && status.outcome.earliestStart)
          throw await this.#tooTight(
            session,
            status.deviceIds,
            [],
            Date.parse(status.outcome.earliestStart),
          );
        const sentSteps = status.steps.filter((step) => step.state === 'sent');
        const failedStep = status.steps.find((step) => step.state === 'failed');
        if (sentSteps.length > 0) throw incomplete(status);
        if (failedStep?.answer) return sendStepAnswer(reply, failedStep.answer);
        throw notSentProblem(status);
      }
    }
  }

  /** Why a change waits: a busy mark of its devices, changes queued before it, else no slot. */
  async #reasonOf(session: Session, status: QueuedChangeStatus): Promise<QueuedReason> {
    const states = await this.#budget.stateOf(
      session.region,
      status.deviceIds,
      this.#upstreamNow(),
    );
    if (states.some((state) => state.waitingChangeIds.some((id) => id !== status.id)))
      return 'changes_waiting';
    return 'no_slot';
  }

  /** 409 `change_would_wait`, worded with when its first call would go on the site's clock. */
  async #wouldWait(
    session: Session,
    deviceIds: readonly string[],
    goesAtMs: number,
  ): Promise<ProblemError> {
    const timeZone = await this.#zoneOf(session, deviceIds);
    const their = deviceIds.length === 1 ? "the device's" : "the devices'";
    return new ProblemError(
      409,
      'change_would_wait',
      `Not sent: ${their} calls to the vendor this minute are spent (${deviceBudgetWords(this.#budget.budgetOf(session.region))}), so this change would wait until ${siteClockWords(goesAtMs, timeZone)}. Nothing was sent or queued; send it again to queue it.`,
      {
        details: ChangeWouldWaitDetailsSchema.parse({
          deviceIds,
          goesAt: new Date(goesAtMs).toISOString(),
        }),
      },
    );
  }

  /** 409 `budget_too_tight`, worded with the earliest start on the site's clock. */
  async #tooTight(
    session: Session,
    deviceIds: readonly string[],
    plan: readonly number[],
    earliestStartMs: number,
  ): Promise<ProblemError> {
    const timeZone = await this.#zoneOf(session, deviceIds);
    const lastCallAtMs = plan.at(-1) ?? earliestStartMs - CHANGE_LEAD_TIME_MS;
    const who = deviceIds.length === 1 ? 'This device' : 'These devices';
    const budget = this.#budget.budgetOf(session.region);
    return new ProblemError(
      409,
      'budget_too_tight',
      `${who} can take the change at ${siteClockWords(lastCallAtMs, timeZone)} at the earliest: ${deviceIds.length === 1 ? 'its' : 'their'} calls to the vendor this minute are spent (${deviceBudgetWords(budget)}). A window starting before ${siteClockWords(earliestStartMs, timeZone)} cannot be sent in time, so nothing was sent. Choose a later start, or try again in a minute.`,
      {
        details: BudgetTooTightDetailsSchema.parse({
          deviceIds,
          lastCallAt: new Date(lastCallAtMs).toISOString(),
          earliestStart: new Date(earliestStartMs).toISOString(),
          limit: budget.limit,
          windowSeconds: Math.round(budget.windowMs / 1000),
        }),
      },
    );
  }

  /** {@link checkChangeSteps} on the upstream's clock, against the commands the BFF knows. */
  #check(session: Session, steps: readonly ChangeStep[]): Promise<void> {
    return checkChangeSteps(session, steps, { nowMs: this.#upstreamNow(), known: this.#known });
  }

  /**
   * Refuses a change made against an older version of `deviceId` when another person's change
   * (a new command, a cancellation) landed since (decision 007, section 5): 409 `device_changed`
   * with what changed, on the site's clock. No header, no device or no read model: no check.
   */
  async #checkVersion(
    request: FastifyRequest,
    session: Session,
    deviceId: string | undefined,
  ): Promise<void> {
    const version = readDeviceVersion(request.headers);
    if (version === undefined || deviceId === undefined || !this.#versions) return;
    const account = accountOf(session);
    const since = await this.#versions.changesSince(account, deviceId, version, {
      exceptBy: personOf(session),
    });
    if (since.changes.length === 0) return;
    const timeZone = await this.#zoneOf(session, [deviceId]);
    throw deviceChanged(deviceId, since, timeZone);
  }

  /** The zone of the devices' site, waited for briefly; undefined (UTC) when not known in time. */
  async #zoneOf(session: Session, deviceIds: readonly string[]): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const site = await Promise.race([
        this.#sites.siteOf(session, deviceIds),
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), SITE_ZONE_WAIT_MS);
        }),
      ]);
      return site?.timeZone;
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The device a change of one call is made against (a submission's, a cancel's); else none. */
function singleDeviceOf(change: Change): string | undefined {
  return change.kind === 'submit' || change.kind === 'cancel' ? change.deviceId : undefined;
}

/** The devices a change of one call spends a slot of (a batch cancel's come from the ledger). */
function devicesOfSingle(change: Change): string[] {
  switch (change.kind) {
    case 'submit':
    case 'cancel':
      return [change.deviceId];
    case 'batch':
      return [...change.batch.devices];
    default:
      return [];
  }
}

/** The queued change of a one-call intent, its step under the intent's key. */
function singleChange(intent: LedgerIntent, deviceIds: readonly string[]): QueuedChange {
  const idempotencyKey = intent.idempotencyKey as string;
  const step = (() => {
    switch (intent.kind) {
      case 'submit':
        return {
          call: 'submit' as const,
          deviceId: intent.deviceId,
          command: intent.command,
          idempotencyKey,
        };
      case 'cancel':
        return {
          call: 'cancel' as const,
          deviceId: intent.deviceId,
          commandId: intent.commandId,
          idempotencyKey,
        };
      case 'batch':
        return { call: 'batch' as const, batch: intent.batch, idempotencyKey };
      case 'batchCancel':
        return {
          call: 'batchCancel' as const,
          batchCommandId: intent.batchCommandId,
          deviceIds: [...deviceIds],
          idempotencyKey,
        };
      default:
        throw new Error(`a ${intent.kind} is not a change of a device`);
    }
  })();
  if (intent.undoOf !== undefined && step.call !== 'batch')
    return { kind: 'undo', undoOf: intent.undoOf, steps: [step] } as QueuedChange;
  switch (step.call) {
    case 'submit':
      return { kind: 'submit', steps: [step] };
    case 'cancel':
      return { kind: 'cancel', steps: [step] };
    case 'batch':
      return { kind: 'batch', steps: [step] };
    case 'batchCancel':
      return { kind: 'batchCancel', steps: [step] };
  }
}

/**
 * The queued change of a planned device change, its steps' keys made from the request's, and the
 * deadline of the window it sends: a new window's start less the lead time; an undo of a
 * submission cancels before the command's start (undo never stops a started command).
 */
export function plannedChange(
  deviceId: string,
  body: DeviceChangeRequest,
  key: string,
): { change: QueuedChange; deadline: { windowStartMs: number; leadMs: number } } {
  const keyOf = (index: number, count: number) => stepIdempotencyKey(key, index, count);
  const lead = (startTime: string) => ({
    windowStartMs: Date.parse(startTime),
    leadMs: CHANGE_LEAD_TIME_MS,
  });
  switch (body.kind) {
    case 'replace':
      return {
        change: {
          kind: 'replace',
          steps: [
            { call: 'cancel', deviceId, commandId: body.commandId, idempotencyKey: keyOf(0, 2) },
            { call: 'submit', deviceId, command: body.command, idempotencyKey: keyOf(1, 2) },
          ],
        },
        deadline: lead(body.command.startTime),
      };
    case 'undoSubmit':
      return {
        change: {
          kind: 'undo',
          undoOf: body.undoOf,
          steps: [
            { call: 'cancel', deviceId, commandId: body.commandId, idempotencyKey: keyOf(0, 1) },
          ],
        },
        deadline: { windowStartMs: Date.parse(body.startTime), leadMs: 0 },
      };
    case 'undoCancel':
      return {
        change: {
          kind: 'undo',
          undoOf: body.undoOf,
          steps: [{ call: 'submit', deviceId, command: body.command, idempotencyKey: keyOf(0, 1) }],
        },
        deadline: lead(body.command.startTime),
      };
    case 'undoReplace':
      return {
        change: {
          kind: 'undo',
          undoOf: body.undoOf,
          steps: [
            { call: 'cancel', deviceId, commandId: body.commandId, idempotencyKey: keyOf(0, 2) },
            { call: 'submit', deviceId, command: body.command, idempotencyKey: keyOf(1, 2) },
          ],
        },
        deadline: lead(body.command.startTime),
      };
  }
}

/** The 202 a route answers for a change it queued. */
function queuedAnswerOf(row: QueuedChangeRow, reason: QueuedReason): QueuedAnswer {
  const status = statusOf(row);
  return {
    queued: {
      changeId: row.id,
      goesAt: status.goesAt ?? status.updatedAt,
      reason,
      deviceIds: devicesOfChange(row.change),
    },
  };
}

function sendQueued(reply: FastifyReply, answer: QueuedAnswer): FastifyReply {
  return sendJson(reply, 202, answer);
}

/**
 * A JSON answer sent as text, as the ledger's answers are: the route's declared union of answers
 * describes it, and each member was built from its domain shape.
 */
function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json').send(JSON.stringify(body));
}

/** A sent change with the cancellation and the new command its steps' answers hold. */
function sentAnswerOf(status: QueuedChangeStatus): DeviceChangeAnswer {
  const answer: DeviceChangeAnswer = { change: status };
  for (const step of status.steps) {
    if (!step.answer) continue;
    if (step.call === 'cancel')
      answer.cancelled = step.answer.body as DeviceChangeAnswer['cancelled'];
    if (step.call === 'submit')
      answer.submitted = step.answer.body as DeviceChangeAnswer['submitted'];
  }
  return answer;
}

/** A step's stored answer (a problem) sent as it was. */
function sendStepAnswer(
  reply: FastifyReply,
  answer: { status: number; body: unknown },
): FastifyReply {
  const problem = ProblemSchema.safeParse(answer.body);
  reply.code(answer.status);
  if (problem.success) return reply.type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem.data));
  return reply.send(answer.body);
}

function keyReused(): ProblemError {
  return new ProblemError(
    422,
    'idempotency_key_reused',
    'This attempt was already used for a different change, so it was not sent. Reload the page and make the change again.',
  );
}

function withdrawn(status: QueuedChangeStatus): ProblemError {
  return new ProblemError(
    409,
    'change_not_withdrawable',
    'This change was withdrawn before it was sent, so nothing was sent. Make it again if it is still wanted.',
    { details: { change: status } },
  );
}

function incomplete(status: QueuedChangeStatus): ProblemError {
  const sentCancel = status.steps.find((step) => step.call === 'cancel' && step.state === 'sent');
  const refused = status.steps.find((step) => step.state === 'failed');
  const why = ProblemSchema.safeParse(refused?.answer?.body);
  return new ProblemError(
    409,
    'change_incomplete',
    `${sentCancel?.commandId ? `Command ${sentCancel.commandId} was cancelled` : 'The first step was sent'}, but the new window was refused${why.success && why.data.detail ? `: ${why.data.detail}` : '.'} Restore the old window, or send a new one.`,
    { details: { change: status } },
  );
}

function notSentProblem(status: QueuedChangeStatus): ProblemError {
  return new ProblemError(
    502,
    'upstream_error',
    status.outcome?.detail ??
      "The change could not be sent: the vendor's service kept failing. Nothing was sent; try again in a moment.",
    { details: { change: status } },
  );
}

/** 409 `device_changed`: what another person changed on the device since the version seen. */
function deviceChanged(
  deviceId: string,
  since: Awaited<ReturnType<DeviceVersions['changesSince']>>,
  timeZone: string | undefined,
): ProblemError {
  const words = since.changes
    .slice(0, 5)
    .map((change) => {
      const by = change.madeBy ? `by ${change.madeBy}` : 'by someone else';
      const window = `${siteClockWords(Date.parse(change.startTime), timeZone)} to ${siteClockWords(Date.parse(change.endTime), timeZone)}`;
      return change.kind === 'commandAdded'
        ? `command ${change.commandId} was added ${by} for ${window}`
        : `command ${change.commandId} (${window}) was cancelled ${change.cancelReason === 'manuallyCancel' || change.madeBy ? by : 'by the device'}`;
    })
    .join('; ');
  const more = since.changes.length > 5 ? ` and ${since.changes.length - 5} more` : '';
  return new ProblemError(
    409,
    'device_changed',
    `${deviceId} changed since you opened it: ${words}${more}. Nothing was sent. Look at its commands again, then make your change if it still applies.`,
    { details: since },
  );
}

/**
 * 409 `change_already_queued`: a change of a command, or a cancel of a batch, that a queued change
 * will cancel already (a command, and a batch, has at most one queued change; domain
 * `queuedCancelOf`, `queuedBatchCancelOf`), worded with when that one goes on the site's clock
 * (`timeZone`; UTC when not known) and how to make another instead.
 */
function alreadyQueued(
  outcome: Extract<QueueOutcome, { reason: 'already_queued' }>,
  timeZone: string | undefined,
): ProblemError {
  const { kind } = outcome.waiting.change;
  const what = QUEUED_CHANGE_KIND_WORDS[kind].toLowerCase();
  const article = /^[aeiou]/.test(what) ? 'An' : 'A';
  const of =
    'batchCommandId' in outcome
      ? { subject: `batch ${outcome.batchCommandId}`, another: 'To cancel the batch again' }
      : {
          subject: `command ${outcome.commandId}`,
          another: 'To change the command another way',
        };
  const target =
    'batchCommandId' in outcome
      ? { batchCommandId: outcome.batchCommandId }
      : { deviceId: outcome.deviceId, commandId: outcome.commandId };
  return new ProblemError(
    409,
    'change_already_queued',
    `${article} ${what} of ${of.subject} is already queued: it goes at ${siteClockWords(outcome.goesAtMs, timeZone)}. Nothing more was sent or queued. ${of.another}, withdraw that ${what} first (under Queued changes).`,
    {
      details: ChangeAlreadyQueuedDetailsSchema.parse({
        ...target,
        changeId: outcome.waiting.id,
        kind,
        goesAt: new Date(outcome.goesAtMs).toISOString(),
      }),
    },
  );
}
