import { createHash } from 'node:crypto';
import { and, asc, eq, gt, inArray, lt, lte, or, sql } from 'drizzle-orm';
import {
  DEVICE_CALL_WINDOW_MS,
  callsKeptForChanges,
  deviceBudgetAt,
  planCalls,
  planTogether,
  type DeviceBudgetNow,
  type DeviceBudgets,
  type DeviceCallBudget,
  type DeviceCalls,
  unansweredCallCountsFromMs,
} from '../../domain/device-budget.ts';
import { WAITING_CHANGE_STATES } from '../../domain/queued-change.ts';
import { REGIONS, type Region } from '../../domain/token.ts';
import type { Database } from '../../infra/database.ts';
import {
  deviceCallBusy,
  deviceCallSlots,
  queuedChangeDevices,
  queuedChanges,
} from '../db/schema.ts';
import { changeRowOf, remainingSteps, type QueuedChangeRow } from './queued-change-rows.ts';

/** What an upstream call about a device is: control calls go before reads. */
export type DeviceCallKind = 'control' | 'read';

/**
 * The longest a 429 keeps a device busy, ms: a longer `Retry-After` (or a busy mark made before
 * the upstream clock went back, as the sandbox's does on reset) is cut to it.
 */
export const MAX_BUSY_MS = 60 * 60_000;

/** The budgets from the per-region limits (`EU_DEVICE_CALLS_PER_MINUTE`, ...), one minute each. */
export function deviceBudgetsOf(callsPerMinute: Record<Region, number>): DeviceBudgets {
  return Object.fromEntries(
    REGIONS.map((region) => [
      region,
      { limit: callsPerMinute[region], windowMs: DEVICE_CALL_WINDOW_MS },
    ]),
  ) as DeviceBudgets;
}

/** A slot asked for: one call about `deviceIds` (a batch: all of them), now. */
export interface ReserveRequest {
  region: Region;
  /** The devices the call is about; a batch takes one slot of each, all or none. */
  deviceIds: readonly string[];
  kind: DeviceCallKind;
  /** Upstream clock, epoch ms. */
  nowMs: number;
  /**
   * The queued change whose step asks: only changes queued before it (lower `seq`) go first.
   * Absent (a call straight from a route, a read): every waiting change of the devices goes first.
   */
  change?: { id: string; seq: number } | undefined;
}

/** What {@link DeviceBudgetStore.reserve} answers. */
export type Reservation =
  /**
   * The slots are taken (rows written); make the call now. `slotIds` in the order of the
   * request's devices, each device once.
   */
  | { granted: true; slotIds: number[]; atMs: number }
  /** A device has no free slot: the call may go at `nextFreeAtMs` (upstream clock). */
  | { granted: false; reason: 'no_slot'; nextFreeAtMs: number }
  /**
   * Queued changes of these devices wait for their slots and go first (decision 007: control
   * calls before reads, changes in the order they were queued); the call could go at
   * `nextFreeAtMs` after them, as planned now.
   */
  | { granted: false; reason: 'changes_waiting'; changeIds: string[]; nextFreeAtMs: number };

/** A device's budget as the product may show it. */
export interface DeviceBudgetState extends DeviceBudgetNow {
  deviceId: string;
  /** Queued changes of the device that wait for a slot, oldest first. */
  waitingChangeIds: string[];
}

/**
 * The per-device budget of upstream calls, shared by every BFF instance on the database
 * (docs/decisions/007-device-call-budget.md, section 1): each call takes a slot, a row of
 * `bff.device_call_slots`, in a transaction holding the advisory lock of each of its devices, so
 * two instances never spend one slot; the arithmetic is `src/domain/device-budget.ts`'s, on the
 * upstream's clock (`nowMs` of every call).
 *
 * On PostgreSQL the locks are `pg_advisory_xact_lock`, released at commit; PGlite has one
 * connection and runs one transaction at a time, so the same code is serialised there as well
 * (an advisory lock is re-entrant within a connection and changes nothing).
 *
 * Slot rows more than one window ahead of the upstream clock were written before it went back
 * (the sandbox's reset does that) and are dropped; so are busy marks beyond {@link MAX_BUSY_MS}.
 */
export class DeviceBudgetStore {
  readonly #db: Database;
  readonly #budgets: DeviceBudgets;

  constructor(db: Database, budgets: DeviceBudgets) {
    this.#db = db;
    this.#budgets = budgets;
  }

  /** The budget of `region`'s devices. */
  budgetOf(region: Region): DeviceCallBudget {
    return this.#budgets[region];
  }

  /**
   * Takes one slot of each of `deviceIds` for a call at `nowMs`, or none: granted only when every
   * device has a free slot, none is busy after a 429, and no queued change of theirs waits ahead
   * of the caller (a read waits for every queued change of its devices).
   *
   * @throws RangeError for an empty `deviceIds`; database errors.
   */
  reserve(request: ReserveRequest): Promise<Reservation> {
    return this.#db.transaction((tx) => this.reserveIn(tx as unknown as Database, request));
  }

  /**
   * {@link DeviceBudgetStore.reserve} inside the caller's transaction `tx` (the change queue
   * reserves and marks its step under way in one).
   */
  async reserveIn(tx: Database, request: ReserveRequest): Promise<Reservation> {
    const deviceIds = [...new Set(request.deviceIds)];
    if (deviceIds.length === 0) throw new RangeError('a call about no device takes no slot');
    const { region, nowMs } = request;
    await this.lockDevices(tx, region, deviceIds);
    const waiting = await this.waitingChangesIn(tx, region, deviceIds, request.change?.seq);
    // A read goes only when a change could follow it in the same window (callsKeptForChanges):
    // planned as the read and then that change, it goes when the change's call would be free too.
    const kept = request.kind === 'read' ? callsKeptForChanges(this.budgetOf(region)) : 0;
    const steps = Array.from({ length: 1 + kept }, () => deviceIds);
    const { plan } = await this.#planAfter(tx, region, steps, nowMs, waiting, false);
    const atMs = plan[plan.length - 1] as number;
    if (waiting.length > 0)
      return {
        granted: false,
        reason: 'changes_waiting',
        changeIds: waiting.map((change) => change.id),
        nextFreeAtMs: atMs,
      };
    if (atMs > nowMs) return { granted: false, reason: 'no_slot', nextFreeAtMs: atMs };
    // The call is not on its way yet, let alone answered: it counts from the latest moment it
    // could arrive until settle() knows better.
    const spentAt = new Date(unansweredCallCountsFromMs(nowMs, this.budgetOf(region)));
    const rows = await tx
      .insert(deviceCallSlots)
      .values(
        deviceIds.map((deviceId) => ({
          region,
          deviceId,
          spentAt,
          kind: request.kind,
          changeId: request.change?.id ?? null,
        })),
      )
      .returning({ id: deviceCallSlots.id, deviceId: deviceCallSlots.deviceId });
    await this.#pruneDevices(tx, region, deviceIds, nowMs);
    const slotOf = new Map(rows.map((row) => [row.deviceId, row.id]));
    return {
      granted: true,
      slotIds: deviceIds.map((deviceId) => slotOf.get(deviceId) as number),
      atMs: nowMs,
    };
  }

  /**
   * Moves the time taken slots count from to when their call was answered, or given up (upstream
   * clock): the upstream counted the request when it arrived, somewhere between the reservation
   * and the answer, so the slot is held until a window after the answer. A slot counts from a
   * window after its reservation until then ({@link unansweredCallCountsFromMs}), so this mostly
   * moves it earlier: a slot is held as long as its call may still arrive, no longer.
   */
  async settle(slotIds: readonly number[], answeredAtMs: number): Promise<void> {
    if (slotIds.length === 0) return;
    await this.#db
      .update(deviceCallSlots)
      .set({ spentAt: new Date(answeredAtMs) })
      .where(inArray(deviceCallSlots.id, [...slotIds]));
  }

  /**
   * Gives back slots taken for a call that was never made (the ledger replayed a known answer, or
   * refused before sending): the upstream counted nothing, so the budget counts nothing either.
   */
  async release(slotIds: readonly number[]): Promise<void> {
    if (slotIds.length === 0) return;
    await this.#db.delete(deviceCallSlots).where(inArray(deviceCallSlots.id, [...slotIds]));
  }

  /**
   * Forgets every call spent and every busy mark, of every device: for an upstream that has just
   * forgotten them itself (the sandbox's admin reset beside `npm start` and the browser tests),
   * never for the vendor, whose minute goes on whatever the BFF does.
   */
  async forgetAll(): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.delete(deviceCallSlots);
      await tx.delete(deviceCallBusy);
    });
  }

  /**
   * Marks devices busy until `untilMs` (upstream clock): the upstream answered 429 with
   * `Retry-After`, so another client of the account spent their budget. No slot of theirs is
   * granted before then; a later mark never shortens an earlier one. At most {@link MAX_BUSY_MS}
   * after `nowMs`.
   */
  markBusy(
    region: Region,
    deviceIds: readonly string[],
    untilMs: number,
    nowMs: number,
  ): Promise<void> {
    return this.markBusyIn(this.#db, region, deviceIds, untilMs, nowMs);
  }

  /** {@link DeviceBudgetStore.markBusy} inside the caller's transaction `tx`. */
  async markBusyIn(
    tx: Database,
    region: Region,
    deviceIds: readonly string[],
    untilMs: number,
    nowMs: number,
  ): Promise<void> {
    const ids = [...new Set(deviceIds)];
    if (ids.length === 0) return;
    const busyUntil = new Date(Math.min(untilMs, nowMs + MAX_BUSY_MS));
    await tx
      .insert(deviceCallBusy)
      .values(ids.map((deviceId) => ({ region, deviceId, busyUntil })))
      .onConflictDoUpdate({
        target: [deviceCallBusy.region, deviceCallBusy.deviceId],
        set: {
          busyUntil: sql`greatest(excluded.busy_until, least(${deviceCallBusy.busyUntil}, ${new Date(nowMs + MAX_BUSY_MS)}))`,
        },
      });
  }

  /** Where each device's budget stands at `nowMs`, and which queued changes wait for it. */
  async stateOf(
    region: Region,
    deviceIds: readonly string[],
    nowMs: number,
  ): Promise<DeviceBudgetState[]> {
    const ids = [...new Set(deviceIds)];
    if (ids.length === 0) return [];
    const calls = await this.callsIn(this.#db, region, ids, nowMs);
    const waiting = await this.waitingChangesIn(this.#db, region, ids);
    const budget = this.budgetOf(region);
    return ids.map((deviceId) => ({
      deviceId,
      ...deviceBudgetAt(calls.get(deviceId) ?? { spentAtMs: [] }, budget, nowMs),
      waitingChangeIds: waiting
        .filter((change) => remainingSteps(change).some((s) => s.deviceIds.includes(deviceId)))
        .map((change) => change.id),
    }));
  }

  /**
   * Deletes slots no window counts any more and busy marks that have passed (at `nowMs`, upstream
   * clock); a reservation prunes its own devices, this the rest.
   */
  async prune(nowMs: number): Promise<void> {
    const windowMs = Math.max(...REGIONS.map((region) => this.#budgets[region].windowMs));
    await this.#db
      .delete(deviceCallSlots)
      .where(
        or(
          lte(deviceCallSlots.spentAt, new Date(nowMs - windowMs)),
          gt(deviceCallSlots.spentAt, new Date(nowMs + windowMs)),
        ),
      );
    await this.#db
      .delete(deviceCallBusy)
      .where(
        or(
          lte(deviceCallBusy.busyUntil, new Date(nowMs)),
          gt(deviceCallBusy.busyUntil, new Date(nowMs + MAX_BUSY_MS)),
        ),
      );
  }

  /**
   * Plans `steps` (each the devices of one call, in sending order) inside `tx`, after every
   * queued change of their devices that waits ahead (`beforeSeq`; all waiting changes when
   * absent): the calls they have spent, the waiting changes' planned steps, and no step before
   * the last of those; the steps go together ({@link planTogether}: a replace's cancel waits
   * until its submission can follow at once). Call it holding the devices' locks ({@link DeviceBudgetStore.lockDevices})
   * for a plan no other instance can change before it is written.
   */
  async planIn(
    tx: Database,
    region: Region,
    steps: readonly (readonly string[])[],
    nowMs: number,
    beforeSeq?: number,
  ): Promise<{ plan: number[]; waiting: QueuedChangeRow[] }> {
    const deviceIds = [...new Set(steps.flat())];
    const waiting = await this.waitingChangesIn(tx, region, deviceIds, beforeSeq);
    return this.#planAfter(tx, region, steps, nowMs, waiting, true);
  }

  async #planAfter(
    tx: Database,
    region: Region,
    steps: readonly (readonly string[])[],
    nowMs: number,
    waiting: readonly QueuedChangeRow[],
    /** The steps of one change, sent together ({@link planTogether}); else each when it can. */
    together: boolean,
  ): Promise<{ plan: number[]; waiting: QueuedChangeRow[] }> {
    const deviceIds = [...new Set(steps.flat())];
    const known = await this.callsIn(tx, region, deviceIds, nowMs);
    const calls = new Map<string, { spentAtMs: number[]; busyUntilMs?: number | undefined }>(
      deviceIds.map((id) => {
        const device = known.get(id);
        return [
          id,
          { spentAtMs: [...(device?.spentAtMs ?? [])], busyUntilMs: device?.busyUntilMs },
        ];
      }),
    );
    // Changes queued earlier go first: their steps still to come hold their slots, and nothing of
    // this plan goes before the last of them.
    let fromMs = nowMs;
    for (const change of waiting)
      for (const step of remainingSteps(change)) {
        const atMs = Math.max(step.plannedAtMs, nowMs);
        fromMs = Math.max(fromMs, atMs);
        // A step under way has its slot among the rows already.
        if (change.steps[step.index]?.state !== 'waiting') continue;
        for (const id of step.deviceIds) calls.get(id)?.spentAtMs.push(atMs);
      }
    return {
      plan: (together ? planTogether : planCalls)(calls, steps, this.budgetOf(region), fromMs),
      waiting: [...waiting],
    };
  }

  /**
   * Takes the advisory lock of each device for the rest of transaction `tx`, in one global order
   * (by key) so that two batches sharing devices never wait for each other in a cycle.
   */
  async lockDevices(tx: Database, region: Region, deviceIds: readonly string[]): Promise<void> {
    const keys = [...new Set(deviceIds.map((id) => deviceLockKey(region, id)))].sort((a, b) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    for (const key of keys)
      await tx.execute(sql`select pg_advisory_xact_lock(${key.toString()}::bigint)`);
  }

  /** The calls each device spent within a window of `nowMs`, and its busy mark. */
  async callsIn(
    tx: Database,
    region: Region,
    deviceIds: readonly string[],
    nowMs: number,
  ): Promise<Map<string, DeviceCalls>> {
    const windowMs = this.budgetOf(region).windowMs;
    const slots = await tx
      .select({ deviceId: deviceCallSlots.deviceId, spentAt: deviceCallSlots.spentAt })
      .from(deviceCallSlots)
      .where(
        and(
          eq(deviceCallSlots.region, region),
          inArray(deviceCallSlots.deviceId, [...deviceIds]),
          gt(deviceCallSlots.spentAt, new Date(nowMs - windowMs)),
          lte(deviceCallSlots.spentAt, new Date(nowMs + windowMs)),
        ),
      );
    const busy = await tx
      .select()
      .from(deviceCallBusy)
      .where(
        and(
          eq(deviceCallBusy.region, region),
          inArray(deviceCallBusy.deviceId, [...deviceIds]),
          gt(deviceCallBusy.busyUntil, new Date(nowMs)),
          lte(deviceCallBusy.busyUntil, new Date(nowMs + MAX_BUSY_MS)),
        ),
      );
    const calls = new Map<string, { spentAtMs: number[]; busyUntilMs?: number }>();
    const of = (id: string) => {
      let device = calls.get(id);
      if (!device) calls.set(id, (device = { spentAtMs: [] }));
      return device;
    };
    for (const slot of slots) of(slot.deviceId).spentAtMs.push(slot.spentAt.getTime());
    for (const mark of busy) of(mark.deviceId).busyUntilMs = mark.busyUntil.getTime();
    return calls;
  }

  /**
   * The queued changes of `deviceIds` still waiting (queued or sending), oldest first; with
   * `beforeSeq`, only those queued before it.
   */
  async waitingChangesIn(
    tx: Database,
    region: Region,
    deviceIds: readonly string[],
    beforeSeq?: number,
  ): Promise<QueuedChangeRow[]> {
    const ofDevices = tx
      .select({ changeId: queuedChangeDevices.changeId })
      .from(queuedChangeDevices)
      .where(
        and(
          eq(queuedChangeDevices.region, region),
          inArray(queuedChangeDevices.deviceId, [...deviceIds]),
        ),
      );
    const rows = await tx
      .select()
      .from(queuedChanges)
      .where(
        and(
          inArray(queuedChanges.id, ofDevices),
          inArray(queuedChanges.state, [...WAITING_CHANGE_STATES]),
          beforeSeq === undefined ? undefined : lt(queuedChanges.seq, beforeSeq),
        ),
      )
      .orderBy(asc(queuedChanges.seq));
    return rows.map(changeRowOf);
  }

  async #pruneDevices(
    tx: Database,
    region: Region,
    deviceIds: readonly string[],
    nowMs: number,
  ): Promise<void> {
    const windowMs = this.budgetOf(region).windowMs;
    await tx
      .delete(deviceCallSlots)
      .where(
        and(
          eq(deviceCallSlots.region, region),
          inArray(deviceCallSlots.deviceId, [...deviceIds]),
          or(
            lte(deviceCallSlots.spentAt, new Date(nowMs - windowMs)),
            gt(deviceCallSlots.spentAt, new Date(nowMs + windowMs)),
          ),
        ),
      );
  }
}

/**
 * The advisory lock key of one device's budget: the first 8 bytes of SHA-256 over a fixed prefix,
 * the region and the device ID, as a signed 64-bit integer (PostgreSQL's `bigint` key space), the
 * same in every instance and apart from the migrations' keys (`src/infra/database.ts`).
 */
export function deviceLockKey(region: Region, deviceId: string): bigint {
  return createHash('sha256')
    .update(`powerdeck device budget\0${region}\0${deviceId}`)
    .digest()
    .readBigInt64BE(0);
}
