import { randomUUID } from 'node:crypto';
import { CHANGE_LEAD_TIME_MS } from '#domain/lead-time.ts';
import {
  devicesOfStep,
  type ChangeStep,
  type DeviceChangeAnswer,
  type DeviceChangeRequest,
  type QueuedAnswer,
  type QueuedChangeStatus,
  type QueuedReason,
} from '#domain/queued-change.ts';
import { accountOf, actorOf, personOf } from '#domain/account.ts';
import type { ChangeQueue } from '../budget/change-queue.ts';
import type { DeviceBudgetStore } from '../budget/device-budget-store.ts';
import type { KeyLookup } from '../db/idempotency-records.ts';
import { statusOf } from '../budget/queued-change-rows.ts';
import { ProblemError } from '../http/problem.ts';
import type { DeviceCommandsRecorder } from '../ledger/device-commands-recorder.ts';
import { requestFingerprint } from '../ledger/idempotency.ts';
import { fingerprintOf, type LedgerIntent } from '../ledger/ledger-intent.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { Session } from '../session/session-store.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import type { KnownCommandSource } from '../upstream/upstream-api.ts';
import { checkChangeSteps } from './change-checks.ts';
import { kindOf, singleChange, stepOf, type ChangeCall } from './change-kinds.ts';
import {
  alreadyQueued,
  deviceChanged,
  incomplete,
  keyReused,
  notSentProblem,
  tooTight,
  withdrawn,
  wouldWait,
} from './change-problems.ts';
import {
  knownQueuedOutcome,
  ledgerOutcome,
  problemOutcome,
  queuedAnswerOf,
  queuedOutcome,
  sentAnswerOf,
  stepOutcome,
  type ChangeOutcome,
} from './change-outcomes.ts';
import type { ChangeSteps } from './change-steps.ts';
import { keyHolder, queuedByKey } from './key-holder.ts';
import { plannedChange } from './planned-change.ts';
import { changeSealingContext } from './queued-step-sender.ts';
import { webhookLinks } from '../webhooks/webhook-links.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';

/** How long a change due now is waited for (real time) to be sent before answering 202. */
export const SETTLE_WAIT_MS = 15_000;
/** How long the words of a refusal wait for the site's clock before using UTC, ms. */
const SITE_ZONE_WAIT_MS = 500;

/** The person's own changes are left out with `exceptBy`: they never make their own view stale. */
export type DeviceVersions = Pick<DeviceCommandsRecorder, 'changesSince'>;

/** What the change service needs. */
export interface ChangeServiceDeps {
  ledger: Ledger;
  /** How a step is sent: through the ledger, inside the budget (one for every sender). */
  steps: ChangeSteps;
  budget: DeviceBudgetStore;
  queue: ChangeQueue;
  /** Who holds an `Idempotency-Key` (`recordsOfKey`). */
  keys: KeyLookup;
  box: SecretBox;
  sites: SiteDirectory;
  /** The upstream's clock, epoch ms, on which the budget counts. */
  upstreamNow: () => number;
  /** Where a device's version and what changed since come from (the read model); none: no check. */
  versions?: DeviceVersions | undefined;
  /** The commands the BFF knows (the read model), a new window is checked against; none: no check. */
  knownCommands?: KnownCommandSource | undefined;
  /** How long a change due now is waited for (default {@link SETTLE_WAIT_MS}). */
  settleWaitMs?: number | undefined;
  /** Outgoing webhooks: told when a change meets a device whose calls are spent. */
  webhooks?: WebhookOutbox | undefined;
}

/** A replace or an undo of a device's command, planned as a whole (`POST .../changes`). */
export interface PlannedChangeRequest {
  kind: 'planned';
  deviceId: string;
  body: DeviceChangeRequest;
}

/** A change to a device: one call, or a planned change of several steps. */
export type ChangeRequest = ChangeCall | PlannedChangeRequest;

/** What a request adds to a change, read from its headers by the route. */
export interface SubmitOptions {
  /** `Idempotency-Key`; none: the change gets one of its own, so its steps can be queued. */
  idempotencyKey?: string | undefined;
  /** `Powerdeck-Undo-Of` of a change of one call (a planned undo names it in its body). */
  undoOf?: string | undefined;
  /** The browser's request, named in the upstream's log. */
  requestId?: string | undefined;
  /** `Powerdeck-Device-Version`: the device's version the change was made against. */
  deviceVersion?: number | undefined;
  /** A change whose (first) call would wait: queued (default) or refused 409 `change_would_wait`. */
  ifLater?: 'queue' | 'refuse' | undefined;
}

/**
 * Sends every change to a device within its budget of upstream calls, or queues it, or refuses
 * it (409 `budget_too_tight`, `device_changed`, `checkChangeSteps`'s): decision 007, sections 1,
 * 2 and 5, and docs/architecture.md, BFF surface. It knows no HTTP framework:
 * `product-api/write-path.ts` reads the request and sends the answer.
 */
export class ChangeService {
  readonly #ledger: Ledger;
  readonly #steps: ChangeSteps;
  readonly #budget: DeviceBudgetStore;
  readonly #queue: ChangeQueue;
  readonly #keys: KeyLookup;
  readonly #box: SecretBox;
  readonly #sites: SiteDirectory;
  readonly #upstreamNow: () => number;
  readonly #versions: DeviceVersions | undefined;
  readonly #known: KnownCommandSource | undefined;
  readonly #settleWaitMs: number;
  readonly #webhooks: WebhookOutbox | undefined;

  constructor(deps: ChangeServiceDeps) {
    this.#ledger = deps.ledger;
    this.#steps = deps.steps;
    this.#budget = deps.budget;
    this.#queue = deps.queue;
    this.#keys = deps.keys;
    this.#box = deps.box;
    this.#sites = deps.sites;
    this.#upstreamNow = deps.upstreamNow;
    this.#versions = deps.versions;
    this.#known = deps.knownCommands;
    this.#settleWaitMs = deps.settleWaitMs ?? SETTLE_WAIT_MS;
    this.#webhooks = deps.webhooks;
  }

  get #records() {
    return { keys: this.#keys, ledger: this.#ledger, queue: this.#queue };
  }

  get queue(): ChangeQueue {
    return this.#queue;
  }

  /**
   * Answers a change as `caller` (see the class). A refusal before anything is sent is an outcome
   * too (`refused` with its problem: 409 `device_changed`, `budget_too_tight`,
   * `change_would_wait`, `change_already_queued`, `checkChangeSteps`'s, the ledger's own, 422
   * `idempotency_key_reused`, 400 `invalid_undo_of`).
   *
   * @throws Error only when something other than a refusal went wrong.
   */
  async submit(
    caller: Session,
    change: ChangeRequest,
    options: SubmitOptions = {},
  ): Promise<ChangeOutcome> {
    try {
      return 'call' in change
        ? await this.#single(caller, change, options)
        : await this.#planned(caller, change.deviceId, change.body, options);
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      return { outcome: problemOutcome(error.problem.code), problem: error };
    }
  }

  /** A change of one upstream call: a known key is answered by the ledger or the queue. */
  async #single(caller: Session, call: ChangeCall, options: SubmitOptions): Promise<ChangeOutcome> {
    const kind = kindOf(call);
    const { undoOf, requestId } = options;
    // A change queued under no key still needs one for its step: the ledger then records it so.
    const key = options.idempotencyKey ?? `powerdeck:${randomUUID()}`;
    await this.#checkVersion(caller, kind.versionedDevice(call), options.deviceVersion);
    const step = stepOf(
      call,
      key,
      call.call === 'batchCancel'
        ? await this.#ledger.batchDevices(caller, call.batchCommandId)
        : [],
    );
    const deviceIds = devicesOfStep(step);
    const fingerprint = fingerprintOf({
      ...kind.intent(call, caller),
      undoOf,
    } as LedgerIntent);
    const run = async (slotIds?: number[]): Promise<ChangeOutcome> => {
      const answer = await this.#steps.send(caller, step, {
        idempotencyKey: key,
        undoOf,
        requestId,
        ...(slotIds ? { slots: { slotIds } } : {}),
      });
      if (answer.answer.status === 429 && deviceIds.length > 0) {
        await this.#budgetSpent(caller, deviceIds, undefined);
        // The vendor said the devices are busy (another client spent their calls): the change
        // waits for them under its key rather than failing, and is never retried blind.
        const queued = await this.#queueSingle(caller, step, undoOf, fingerprint, 'device_busy');
        if (queued) return queuedOutcome(queued);
      }
      return ledgerOutcome(answer);
    };
    // A batch cancel of a batch the ledger does not know names no device: nothing to reserve.
    if (deviceIds.length === 0) return run();

    const holder = await keyHolder(this.#records, caller, key);
    if (holder?.record === 'ledger') return run();
    if (holder?.record === 'queue') return knownQueuedOutcome(holder.row, fingerprint);
    // A new change: checked before it takes a slot or waits for one (a retry of a key sent
    // before is the ledger's to answer, its own command being in the read model now).
    await this.#check(caller, [step]);
    const reservation = await this.#budget.reserve({
      region: caller.region,
      deviceIds,
      kind: 'control',
      nowMs: this.#upstreamNow(),
    });
    if (!reservation.granted) {
      if (reservation.reason === 'no_slot')
        await this.#budgetSpent(caller, deviceIds, reservation.nextFreeAtMs);
      if (options.ifLater === 'refuse')
        throw wouldWait(
          this.#budget.budgetOf(caller.region),
          deviceIds,
          reservation.nextFreeAtMs,
          await this.#zoneOf(caller, deviceIds),
        );
      const answer = await this.#queueSingle(
        caller,
        step,
        undoOf,
        fingerprint,
        reservation.reason === 'changes_waiting' ? 'changes_waiting' : 'no_slot',
      );
      if (answer) return queuedOutcome(answer);
      // The change of the same key won the race: answer where it stands.
      const known = await queuedByKey(this.#records, caller, key);
      if (known) return knownQueuedOutcome(known, fingerprint);
      throw new Error('a queued change vanished');
    }
    return run(reservation.slotIds);
  }

  /**
   * A planned change (`POST /api/devices/{deviceId}/changes`), queued and, when due now, waited
   * for; with `ifLater` `refuse` one that would wait is refused 409 `change_would_wait` unsent.
   */
  async #planned(
    caller: Session,
    deviceId: string,
    body: DeviceChangeRequest,
    options: SubmitOptions,
  ): Promise<ChangeOutcome> {
    const key = options.idempotencyKey ?? `powerdeck:${randomUUID()}`;
    await this.#checkVersion(caller, deviceId, options.deviceVersion);
    if (body.kind !== 'replace') await this.#ledger.checkUndoOf(caller, body.undoOf);
    const { change, deadline } = plannedChange(deviceId, body, key);
    // A new change is checked before it is queued; a retry of one queued before is answered.
    if (!(await queuedByKey(this.#records, caller, key))) await this.#check(caller, change.steps);
    const id = randomUUID();
    const outcome = await this.#queue.enqueue({
      id,
      owner: actorOf(caller),
      secretCiphertext: this.#box.seal(caller.clientSecret, changeSealingContext(id)),
      change,
      deadline,
      idempotencyKey: key,
      requestHash: requestFingerprint('deviceChange', `/devices/${deviceId}/changes`, body),
      onlyIfNow: options.ifLater === 'refuse',
    });
    if (!outcome.queued && outcome.reason === 'budget_too_tight')
      throw tooTight(
        this.#budget.budgetOf(caller.region),
        [deviceId],
        outcome.plan,
        outcome.earliestStartMs,
        await this.#zoneOf(caller, [deviceId]),
      );
    if (!outcome.queued && outcome.reason === 'would_wait')
      throw wouldWait(
        this.#budget.budgetOf(caller.region),
        [deviceId],
        outcome.plan[0] as number,
        await this.#zoneOf(caller, [deviceId]),
      );
    if (!outcome.queued && outcome.reason === 'already_queued')
      throw alreadyQueued(outcome, await this.#zoneOf(caller, [deviceId]));
    if (!outcome.queued && !outcome.sameRequest) throw keyReused();
    let row = outcome.row;
    if (outcome.queued && (row.nextAtMs ?? Infinity) <= this.#upstreamNow()) {
      const settled = await this.#queue.settled(actorOf(caller), id, this.#settleWaitMs, {
        untilWaiting: true,
      });
      if (settled) return this.#plannedOutcome(caller, settled);
    }
    row = (await queuedByKey(this.#records, caller, key)) ?? row;
    return this.#plannedOutcome(caller, statusOf(row));
  }

  /**
   * Queues a change of one call under its step's key (the ledger entry an earlier try wrote is
   * the one the step completes).
   *
   * @returns the queued answer; undefined when a change of the same key was queued first.
   * @throws ProblemError 409 `budget_too_tight` for a submission or batch whose window would
   *   start before its call could go with the lead time; 409 `change_already_queued`.
   */
  async #queueSingle(
    caller: Session,
    step: ChangeStep,
    undoOf: string | undefined,
    fingerprint: string,
    reason: QueuedReason,
  ): Promise<QueuedAnswer | undefined> {
    const deviceIds = devicesOfStep(step);
    const window = kindOf(step).windowStart(step);
    const id = randomUUID();
    const outcome = await this.#queue.enqueue({
      id,
      owner: actorOf(caller),
      secretCiphertext: this.#box.seal(caller.clientSecret, changeSealingContext(id)),
      change: singleChange(step, undoOf),
      deadline: window
        ? { windowStartMs: Date.parse(window), leadMs: CHANGE_LEAD_TIME_MS }
        : undefined,
      idempotencyKey: step.idempotencyKey,
      requestHash: fingerprint,
    });
    if (outcome.queued) return queuedAnswerOf(outcome.row, reason);
    if (outcome.reason === 'budget_too_tight')
      throw tooTight(
        this.#budget.budgetOf(caller.region),
        deviceIds,
        outcome.plan,
        outcome.earliestStartMs,
        await this.#zoneOf(caller, deviceIds),
      );
    if (outcome.reason === 'already_queued')
      throw alreadyQueued(outcome, await this.#zoneOf(caller, deviceIds));
    return undefined;
  }

  async #plannedOutcome(caller: Session, status: QueuedChangeStatus): Promise<ChangeOutcome> {
    switch (status.state) {
      case 'queued':
      case 'sending':
        return {
          outcome: 'queued',
          json: {
            status: 202,
            body: {
              change: status,
              queued: {
                changeId: status.id,
                goesAt: status.goesAt ?? status.updatedAt,
                reason: status.steps.some((step) => step.state !== 'waiting')
                  ? 'no_slot'
                  : await this.#reasonOf(caller, status),
                deviceIds: status.deviceIds,
              },
            } satisfies DeviceChangeAnswer,
          },
        };
      case 'sent':
        return { outcome: 'sent', json: { status: 200, body: sentAnswerOf(status) } };
      case 'withdrawn':
        throw withdrawn(status);
      case 'failed': {
        if (status.outcome?.failure === 'budget_too_tight' && status.outcome.earliestStart)
          throw tooTight(
            this.#budget.budgetOf(caller.region),
            status.deviceIds,
            [],
            Date.parse(status.outcome.earliestStart),
            await this.#zoneOf(caller, status.deviceIds),
          );
        const sentSteps = status.steps.filter((step) => step.state === 'sent');
        const failedStep = status.steps.find((step) => step.state === 'failed');
        if (sentSteps.length > 0) throw incomplete(status);
        if (failedStep?.answer) return stepOutcome(failedStep.answer);
        throw notSentProblem(status);
      }
    }
  }

  /**
   * When `deviceId` next has an upstream call free in its budget, epoch ms on the upstream's clock
   * (now when it has one); changes already queued for the device go before a new one
   * (docs/decisions/007-device-call-budget.md, section 1).
   */
  async nextCallAtMs(caller: Session, deviceId: string): Promise<number> {
    const nowMs = this.#upstreamNow();
    const [state] = await this.#budget.stateOf(caller.region, [deviceId], nowMs);
    return state && state.freeNow === 0 ? (state.freesAtMs[0] ?? nowMs) : nowMs;
  }

  /** Why a change waits: a busy mark of its devices, changes queued before it, else no slot. */
  async #reasonOf(caller: Session, status: QueuedChangeStatus): Promise<QueuedReason> {
    const states = await this.#budget.stateOf(caller.region, status.deviceIds, this.#upstreamNow());
    if (states.some((state) => state.waitingChangeIds.some((id) => id !== status.id)))
      return 'changes_waiting';
    return 'no_slot';
  }

  /** {@link checkChangeSteps} on the upstream's clock, against the commands the BFF knows. */
  #check(caller: Session, steps: readonly ChangeStep[]): Promise<void> {
    return checkChangeSteps(caller, steps, { nowMs: this.#upstreamNow(), known: this.#known });
  }

  /** 409 `device_changed` if another person changed the device since `version` (decision 007). */
  async #checkVersion(
    caller: Session,
    deviceId: string | undefined,
    version: number | undefined,
  ): Promise<void> {
    if (version === undefined || deviceId === undefined || !this.#versions) return;
    const since = await this.#versions.changesSince(accountOf(caller), deviceId, version, {
      exceptBy: personOf(caller),
    });
    if (since.changes.length === 0) return;
    throw deviceChanged(deviceId, since, await this.#zoneOf(caller, [deviceId]));
  }

  /**
   * `device.budgetSpent` for each device (docs/automation.md, Webhooks): a change met a device
   * whose calls are spent, by powerdeck's count until `nextFreeAtMs` (decision 007, section 1),
   * or by the vendor's 429 (no time). Never fails the change.
   */
  async #budgetSpent(
    caller: Session,
    deviceIds: readonly string[],
    nextFreeAtMs: number | undefined,
  ): Promise<void> {
    const webhooks = this.#webhooks;
    if (!webhooks) return;
    const { siteId } = await this.#sites
      .siteOf(caller, deviceIds)
      .catch(() => ({ siteId: undefined }));
    for (const deviceId of deviceIds)
      await webhooks
        .record(
          { region: caller.region, clientId: caller.clientId },
          {
            type: 'device.budgetSpent',
            data: {
              deviceId,
              ...(siteId ? { siteId } : {}),
              state: 'spent',
              ...(nextFreeAtMs === undefined
                ? {}
                : { nextFreeAt: new Date(nextFreeAtMs).toISOString() }),
              links: { changes: webhookLinks.deviceChanges(deviceId) },
            },
          },
        )
        .catch(() => undefined);
  }

  /** The zone of the devices' site, waited for briefly; undefined (UTC) when not known in time. */
  async #zoneOf(caller: Session, deviceIds: readonly string[]): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const site = await Promise.race([
        this.#sites.siteOf(caller, deviceIds),
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
