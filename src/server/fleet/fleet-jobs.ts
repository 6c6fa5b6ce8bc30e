import { randomUUID } from 'node:crypto';
import type { DeviceCommand } from '#domain/command.ts';
import { checkCapabilities, describeViolation, type SiteList } from '#domain/device.ts';
import type { StatusRecord } from '#domain/command.ts';
import { checkPlan, groupPlanIntoBatches, type PlanCheck } from '#domain/dispatch-plan.ts';
import type { DeviceCallBudget } from '#domain/device-budget.ts';
import type { HistoryQuery } from '#domain/history.ts';
import type { Region } from '#domain/token.ts';
import { actorOf } from '#domain/account.ts';
import {
  splitIntoBatches,
  type FleetPlanRequest,
  type FleetJob,
  type FleetJobAction,
  type FleetJobRequest,
  type FleetJobState,
  type FleetRollout,
  type FleetSelection,
} from '#domain/fleet-job.ts';
import type { KeyLookup } from '../db/idempotency-records.ts';
import { ProblemError } from '../http/problem.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { Session } from '../session/session-store.ts';
import { requestFingerprint } from '../ledger/idempotency.ts';
import type { FleetQueue } from './fleet-queue.ts';
import type { FleetOutcomes } from './fleet-outcomes.ts';
import { sealingContext } from './fleet-runner.ts';
import { toFleetJob, type FleetJobRow, type FleetStore } from './fleet-store.ts';

/** At most this many names are listed in a refusal; the count says how many more. */
const NAMES_SHOWN = 10;

/** A plan's devices' histories are read this many at a time (upstream calls in flight). */
const HISTORY_READS_AT_ONCE = 8;

/** One history read covers at most 30 days (docs/architecture.md, Upstream contract: History). */
const HISTORY_SPAN_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Fleet jobs as the routes use them (docs/fleet-dispatch.md): create one from a selection, read
 * it, pause, resume or cancel it. The steps themselves run in the queue.
 */
export class FleetJobs {
  readonly #store: FleetStore;
  readonly #queue: FleetQueue;
  readonly #box: SecretBox;
  readonly #now: () => number;
  readonly #outcomes: FleetOutcomes;
  readonly #budgetOf: (region: Region) => DeviceCallBudget;
  readonly #keys: KeyLookup;

  constructor(options: {
    store: FleetStore;
    /** Who holds an `Idempotency-Key` (`recordsOfKey`): a job's is its own, apart from a change's. */
    keys: KeyLookup;
    queue: FleetQueue;
    box: SecretBox;
    now: () => number;
    outcomes: FleetOutcomes;
    /** Each region's budget of calls per device: a job's answer says when it ends sending. */
    budgetOf: (region: Region) => DeviceCallBudget;
  }) {
    this.#outcomes = options.outcomes;
    this.#budgetOf = options.budgetOf;
    this.#store = options.store;
    this.#keys = options.keys;
    this.#queue = options.queue;
    this.#box = options.box;
    this.#now = options.now;
  }

  /**
   * Creates a job for `request` under `session`'s sign-in and wakes its first step; a known
   * `idempotencyKey` answers the job that request made (nothing new is made or sent).
   *
   * @param sites reads the session's bound sites (`GET /sites`), where the selection is resolved.
   * @throws ProblemError 422 `fleet_selection_refused` when the selection names a site or device
   *   outside the bound sites, matches nothing, or a device's capability range refuses the command;
   *   422 `idempotency_key_reused` for a known key with another request; 503
   *   `fleet_jobs_starting` while the queue has not started.
   */
  async create(
    session: Session,
    sites: () => Promise<SiteList>,
    request: FleetJobRequest,
    idempotencyKey?: string,
  ): Promise<FleetJob> {
    this.#queue.requireReady();
    const requestHash = requestFingerprint('fleetJob', '/api/fleet-jobs', request);
    if (idempotencyKey) {
      const replayed = await this.#replay(session, idempotencyKey, requestHash);
      if (replayed) return replayed;
    }
    const deviceIds = resolveSelection(await sites(), request.selection, request.command);
    return this.#start(session, {
      command: request.command,
      rollout: request.rollout,
      batches: splitIntoBatches(deviceIds, request.rollout.batchSize).map((ids) => ({
        deviceIds: ids,
      })),
      idempotencyKey,
      requestHash,
    });
  }

  /**
   * Checks the rows of a dispatch plan with `checkPlan` (docs/fleet-dispatch.md, Dispatch plans)
   * against the bound sites and each named device's history over the plan's span.
   *
   * @param histories reads one device's commands over a range (`GET /devices/{id}/commands`).
   * @throws ProblemError from the upstream (sites or a history unreadable).
   */
  async checkPlanRows(
    sites: () => Promise<SiteList>,
    histories: (deviceId: string, query: HistoryQuery) => Promise<StatusRecord[]>,
    rows: FleetPlanRequest['rows'],
  ): Promise<PlanCheck> {
    const bound = await sites();
    const devices = new Map(
      bound.sites.flatMap((site) =>
        site.devices.map((device) => [
          device.deviceId,
          { capabilities: device.capabilities, timeZone: site.timeZone },
        ]),
      ),
    );
    let fromMs = Infinity;
    let toMs = -Infinity;
    for (const row of rows) {
      fromMs = Math.min(fromMs, Date.parse(row.command.startTime));
      toMs = Math.max(toMs, Date.parse(row.command.endTime));
    }
    const named = [...new Set(rows.map((row) => row.deviceId))].filter((id) => devices.has(id));
    const commands = new Map<string, StatusRecord[]>();
    for (let i = 0; i < named.length; i += HISTORY_READS_AT_ONCE)
      await Promise.all(
        named.slice(i, i + HISTORY_READS_AT_ONCE).map(async (deviceId) => {
          const held: StatusRecord[] = [];
          for (let start = fromMs; start < toMs; start += HISTORY_SPAN_MS)
            held.push(
              ...(await histories(deviceId, {
                startTime: new Date(start).toISOString(),
                endTime: new Date(Math.min(toMs, start + HISTORY_SPAN_MS)).toISOString(),
              })),
            );
          commands.set(deviceId, held);
        }),
      );
    return checkPlan(
      rows.map((row) => ({
        line: row.line,
        deviceId: row.deviceId,
        start: row.command.startTime,
        end: row.command.endTime,
        controls: Object.fromEntries(
          Object.entries(row.command.powerControl).map(([p, v]) => [p, String(v)]),
        ),
      })),
      { devices, commands, nowMs: this.#now(), parseTime: (cell) => Date.parse(cell) },
    );
  }

  /**
   * Creates a job from the rows of a dispatch plan the operator kept, checked again as in the
   * preview (`checkPlanRows`; docs/fleet-dispatch.md, Dispatch plans) and grouped into batches.
   * A known `idempotencyKey` answers the job that request made.
   *
   * @throws ProblemError 422 `fleet_selection_refused` naming the lines refused (nothing is made);
   *   422 `idempotency_key_reused`; 503 `fleet_jobs_starting` while the queue has not started.
   */
  async createFromPlan(
    session: Session,
    sites: () => Promise<SiteList>,
    histories: (deviceId: string, query: HistoryQuery) => Promise<StatusRecord[]>,
    request: FleetPlanRequest,
    idempotencyKey?: string,
  ): Promise<FleetJob> {
    this.#queue.requireReady();
    const requestHash = requestFingerprint('fleetPlan', '/api/fleet-plans', request);
    if (idempotencyKey) {
      const replayed = await this.#replay(session, idempotencyKey, requestHash);
      if (replayed) return replayed;
    }
    const check = await this.checkPlanRows(sites, histories, request.rows);
    if (check.refused.length > 0)
      throw new ProblemError(
        422,
        'fleet_selection_refused',
        `Nothing was sent. ${check.refused.length} row${check.refused.length === 1 ? '' : 's'} of the plan cannot be sent: ${check.refused
          .slice(0, NAMES_SHOWN)
          .map((r) => `line ${r.line} (${r.deviceId}): ${r.reasons.join(', ')}`)
          .join('; ')}. Check the plan again and drop the refused rows.`,
      );
    const batches = groupPlanIntoBatches(check.accepted).flatMap((batch) =>
      splitIntoBatches(batch.deviceIds, request.rollout.batchSize).map((deviceIds) => ({
        deviceIds,
        command: batch.command,
      })),
    );
    const first = batches[0];
    if (!first) throw new Error('a checked plan without rows');
    return this.#start(session, {
      command: first.command,
      rollout: request.rollout,
      batches,
      idempotencyKey,
      requestHash,
    });
  }

  /** Writes and wakes a new job; a concurrent one of the same key, written first, is answered. */
  async #start(
    session: Session,
    job: {
      command: DeviceCommand;
      rollout: FleetRollout;
      batches: { deviceIds: string[]; command?: DeviceCommand | undefined }[];
      idempotencyKey: string | undefined;
      requestHash: string;
    },
  ): Promise<FleetJob> {
    const id = randomUUID();
    try {
      await this.#store.create({
        id,
        owner: actorOf(session),
        secretCiphertext: this.#box.seal(session.clientSecret, sealingContext(id)),
        ...job,
        nowMs: this.#now(),
      });
    } catch (error) {
      const replayed = job.idempotencyKey
        ? await this.#replay(session, job.idempotencyKey, job.requestHash)
        : undefined;
      if (replayed) return replayed;
      throw error;
    }
    await this.#queue.wake(id);
    return this.read(session, id);
  }

  /**
   * The job an earlier request with `idempotencyKey` made, when it asked for the same.
   *
   * @throws ProblemError 422 `idempotency_key_reused` when it asked for something else.
   */
  async #replay(
    session: Session,
    idempotencyKey: string,
    requestHash: string,
  ): Promise<FleetJob | undefined> {
    const { fleetJob: earlier } = await this.#keys(actorOf(session), idempotencyKey);
    if (!earlier) return undefined;
    if (earlier.requestHash !== requestHash)
      throw new ProblemError(
        422,
        'idempotency_key_reused',
        'This form already started a fleet job with other values, so no second job was started. Reload the page to start a new one.',
      );
    return this.read(session, earlier.holderId);
  }

  /**
   * One job with its batches. With `refresh` (the job page's poll), its device outcomes are
   * first brought up to date from the read model ({@link FleetOutcomes}): no upstream call.
   *
   * @throws ProblemError 404 `fleet_job_not_found`.
   */
  async read(session: Session, jobId: string, refresh = false): Promise<FleetJob> {
    // The job and its batches come from one snapshot, read again when outcomes were written.
    let snapshot = await this.#store.snapshot(actorOf(session), jobId);
    if (!snapshot) throw notFound();
    if (refresh && (await this.#outcomes.sync(snapshot.job, snapshot.batches)))
      snapshot = (await this.#store.snapshot(actorOf(session), jobId)) ?? snapshot;
    return toFleetJob(snapshot.job, snapshot.batches, this.#sending(snapshot.job));
  }

  /**
   * The batch IDs of the job's batches the vendor accepted, for their verdicts.
   *
   * @throws ProblemError 404 for a job of another client.
   */
  async batchCommandIdsOf(session: Session, jobId: string): Promise<string[]> {
    const snapshot = await this.#store.snapshot(actorOf(session), jobId);
    if (!snapshot) throw notFound();
    return snapshot.batches.flatMap((batch) =>
      batch.batchCommandId ? [batch.batchCommandId] : [],
    );
  }

  /** What `toFleetJob` needs to say when `job` ends sending. */
  #sending(job: FleetJobRow): { nowMs: number; budget: DeviceCallBudget } {
    return { nowMs: this.#now(), budget: this.#budgetOf(job.region) };
  }

  /** The session's client's jobs, newest first, without their batches' devices. */
  async list(session: Session): Promise<FleetJob[]> {
    const jobs = await this.#store.list(actorOf(session));
    return Promise.all(
      jobs.map(async (job) => {
        const full = toFleetJob(job, await this.#store.batches(job.id), this.#sending(job));
        return { ...full, batches: [] };
      }),
    );
  }

  /**
   * Pauses (nothing more is sent until resumed), resumes, or cancels (nothing more is sent; what
   * was sent is cancelled with one batch cancel per batch).
   *
   * @throws ProblemError 404 `fleet_job_not_found`; 409 `fleet_job_state` when the job's state
   *   does not allow the action; 503 `fleet_jobs_starting` for a resume or cancel while the queue
   *   has not started (a pause only holds the job, which its next step reads, so it needs none).
   */
  async act(session: Session, jobId: string, action: FleetJobAction): Promise<FleetJob> {
    if (action !== 'pause') this.#queue.requireReady();
    const job = await this.#store.findOwned(actorOf(session), jobId);
    if (!job) throw notFound();
    const [from, to] = TRANSITIONS[action];
    if (!(await this.#store.transition(jobId, from, to, this.#now())))
      throw new ProblemError(
        409,
        'fleet_job_state',
        `This job is ${job.state}, so it cannot be ${action === 'cancel' ? 'cancelled' : `${action}d`}. Reload the job to see where it stands.`,
      );
    // A resumed job's step runs at once, even when one waits for a moment the rate named: the
    // step holds the rate itself (fleet-runner.ts), on the BFF's clock.
    if (action === 'cancel' || action === 'resume') await this.#queue.hurry(jobId);
    return this.read(session, jobId);
  }
}

const TRANSITIONS: Record<FleetJobAction, [from: FleetJobState[], to: FleetJobState]> = {
  pause: [['running'], 'paused'],
  resume: [['paused'], 'running'],
  cancel: [['running', 'paused'], 'cancelling'],
};

function notFound(): ProblemError {
  return new ProblemError(
    404,
    'fleet_job_not_found',
    'There is no such fleet job among your jobs. Open the list of fleet jobs to find it.',
  );
}

/**
 * The devices a selection names, each once: the named sites' devices in the order the sites are
 * named, then the devices of the named models, then the listed devices in their order. Only the
 * bound sites in `sites` are searched.
 *
 * @throws ProblemError 422 `fleet_selection_refused` (see {@link FleetJobs.create}).
 */
export function resolveSelection(
  sites: SiteList,
  selection: FleetSelection,
  command: DeviceCommand,
): string[] {
  const siteById = new Map(sites.sites.map((site) => [site.siteId, site]));
  const deviceById = new Map(
    sites.sites.flatMap((site) => site.devices.map((device) => [device.deviceId, device])),
  );
  const models = new Set(selection.models);
  const candidates = [
    ...selection.siteIds.flatMap((siteId) => siteById.get(siteId)?.devices ?? []),
    ...sites.sites.flatMap((site) => site.devices.filter((device) => models.has(device.model))),
    ...selection.deviceIds.flatMap((deviceId) => deviceById.get(deviceId) ?? []),
  ];
  const chosen = new Set<string>();
  const refusals: string[] = [];
  for (const device of candidates) {
    if (chosen.has(device.deviceId)) continue;
    chosen.add(device.deviceId);
    const violation = checkCapabilities(command.powerControl, device.capabilities).find(
      (v) => v.kind === 'outOfRange',
    );
    if (violation) refusals.push(`${device.deviceId}: ${describeViolation(violation)}`);
  }
  const unboundSites = selection.siteIds.filter((siteId) => !siteById.has(siteId));
  const unknownDevices = selection.deviceIds.filter((deviceId) => !deviceById.has(deviceId));
  const problems: string[] = [];
  if (unboundSites.length > 0) problems.push(`sites not bound: ${namesOf(unboundSites)}`);
  if (unknownDevices.length > 0)
    problems.push(`devices not in a bound site: ${namesOf(unknownDevices)}`);
  if (refusals.length > 0) problems.push(`outside the device's range: ${namesOf(refusals)}`);
  if (problems.length === 0 && chosen.size === 0) problems.push('no device matches the selection');
  if (problems.length > 0)
    throw new ProblemError(
      422,
      'fleet_selection_refused',
      `Nothing was sent. ${problems.join('; ')}. Change the selection or the command and try again.`,
    );
  return [...chosen];
}

function namesOf(names: string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).join(', ');
  return names.length > NAMES_SHOWN ? `${shown} and ${names.length - NAMES_SHOWN} more` : shown;
}
