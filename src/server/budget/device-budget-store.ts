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
} from '#domain/device-budget.ts';
import { WAITING_CHANGE_STATES } from '#domain/queued-change.ts';
import { REGIONS, type Region } from '#domain/token.ts';
import type { Database } from '#infra/database.ts';
import {
  deviceCallBusy,
  deviceCallSlots,
  deviceReadState,
  queuedChangeDevices,
  queuedChanges,
} from '../db/schema.ts';
import { changeRowOf, remainingSteps, type QueuedChangeRow } from './queued-change-rows.ts';

export type DeviceCallKind = 'control' | 'read';

/** A read of the read model this much past due is taken as stalled, ms (`background`). */
export const STALLED_READ_MS = 2 * 60_000;

/** The longest a 429 keeps a device busy, ms; also drops marks made before the clock went back. */
export const MAX_BUSY_MS = 60 * 60_000;

export function deviceBudgetsOf(callsPerMinute: Record<Region, number>): DeviceBudgets {
  return Object.fromEntries(
    REGIONS.map((region) => [
      region,
      { limit: callsPerMinute[region], windowMs: DEVICE_CALL_WINDOW_MS },
    ]),
  ) as DeviceBudgets;
}

export interface ReserveRequest {
  region: Region;
  /** A batch takes one slot of each, all or none. */
  deviceIds: readonly string[];
  kind: DeviceCallKind;
  nowMs: number;
  /** The asking queued change: only changes with a lower `seq` go first; absent, all do. */
  change?: { id: string; seq: number } | undefined;
  /**
   * A read nobody waits on (a verdict's telemetry, the fleet snapshot): besides the changes it
   * also yields to the read model's read of the device due within the call window or under way,
   * so the read that confirms a batch or learns a status never waits a window behind it
   * (decision 007, section 1).
   */
  background?: boolean | undefined;
}

export type Reservation =
  /** `slotIds` in the order of the request's devices. */
  | { granted: true; slotIds: number[]; atMs: number }
  | { granted: false; reason: 'no_slot'; nextFreeAtMs: number }
  /** Earlier queued changes of these devices go first (decision 007). */
  | { granted: false; reason: 'changes_waiting'; changeIds: string[]; nextFreeAtMs: number }
  /** A background read waits for the read model's read of the device (`background`). */
  | { granted: false; reason: 'reads_due'; nextFreeAtMs: number };

export interface DeviceBudgetState extends DeviceBudgetNow {
  deviceId: string;
  waitingChangeIds: string[];
}

/**
 * The per-device budget of upstream calls, shared by every BFF instance on the database
 * (docs/decisions/007-device-call-budget.md, section 1; src/server/README.md "Slots"): a slot is
 * a row taken under each device's advisory lock; times are on the upstream's clock.
 */
export class DeviceBudgetStore {
  readonly #db: Database;
  readonly #budgets: DeviceBudgets;

  constructor(db: Database, budgets: DeviceBudgets) {
    this.#db = db;
    this.#budgets = budgets;
  }

  budgetOf(region: Region): DeviceCallBudget {
    return this.#budgets[region];
  }

  /**
   * One slot of each of `deviceIds`, or none.
   *
   * @throws RangeError for an empty `deviceIds`; database errors.
   */
  reserve(request: ReserveRequest): Promise<Reservation> {
    return this.#db.transaction((tx) => this.reserveIn(tx as unknown as Database, request));
  }

  /** {@link DeviceBudgetStore.reserve} inside the caller's transaction. */
  async reserveIn(tx: Database, request: ReserveRequest): Promise<Reservation> {
    const deviceIds = [...new Set(request.deviceIds)];
    if (deviceIds.length === 0) throw new RangeError('a call about no device takes no slot');
    const { region, nowMs } = request;
    await this.lockDevices(tx, region, deviceIds);
    const waiting = await this.waitingChangesIn(tx, region, deviceIds, request.change?.seq);
    // A read goes only when a change could still follow it in the same window.
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
    if (request.background) {
      const readDueMs = await this.#readModelReadDueIn(tx, region, deviceIds, nowMs);
      if (readDueMs !== undefined)
        return {
          granted: false,
          reason: 'reads_due',
          nextFreeAtMs: Math.max(readDueMs, nowMs) + this.budgetOf(region).windowMs,
        };
    }
    // Counts from the latest moment the call could arrive, until settle() knows better.
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
   * One slot of each device that has one now, in one transaction: for a call the vendor counts
   * per listed device that may leave some out (`latestData/query`), unlike a batch.
   *
   * @returns the slot of each granted device, and when each other device would have one.
   */
  reserveEach(
    request: ReserveRequest,
  ): Promise<{ slots: Map<string, number>; deferred: Map<string, number> }> {
    return this.#db.transaction(async (tx) => {
      const slots = new Map<string, number>();
      const deferred = new Map<string, number>();
      const deviceIds = [...new Set(request.deviceIds)];
      // All locks first, in key order, so two overlapping calls never deadlock.
      await this.lockDevices(tx as unknown as Database, request.region, deviceIds);
      for (const deviceId of deviceIds) {
        const one = await this.reserveIn(tx as unknown as Database, {
          ...request,
          deviceIds: [deviceId],
        });
        if (one.granted) slots.set(deviceId, one.slotIds[0] as number);
        else deferred.set(deviceId, one.nextFreeAtMs);
      }
      return { slots, deferred };
    });
  }

  /**
   * Moves the slots to when their call was answered or given up: the vendor counted it on arrival,
   * somewhere before that.
   */
  async settle(slotIds: readonly number[], answeredAtMs: number): Promise<void> {
    if (slotIds.length === 0) return;
    await this.#db
      .update(deviceCallSlots)
      .set({ spentAt: new Date(answeredAtMs) })
      .where(inArray(deviceCallSlots.id, [...slotIds]));
  }

  /** Gives back slots of a call never made: the upstream counted nothing. */
  async release(slotIds: readonly number[]): Promise<void> {
    if (slotIds.length === 0) return;
    await this.#db.delete(deviceCallSlots).where(inArray(deviceCallSlots.id, [...slotIds]));
  }

  /** For an upstream that just forgot them itself (the sandbox's reset); never for the vendor. */
  async forgetAll(): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.delete(deviceCallSlots);
      await tx.delete(deviceCallBusy);
    });
  }

  /**
   * Marks devices busy until `untilMs` after a 429's `Retry-After`; never shortens a mark, caps at
   * {@link MAX_BUSY_MS}.
   */
  markBusy(
    region: Region,
    deviceIds: readonly string[],
    untilMs: number,
    nowMs: number,
  ): Promise<void> {
    return this.markBusyIn(this.#db, region, deviceIds, untilMs, nowMs);
  }

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

  /** A reservation prunes its own devices; this the rest. */
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
   * Plans `steps` after the waiting changes queued before `beforeSeq` (all when absent), together
   * ({@link planTogether}). Hold the devices' locks for a plan no other instance can change.
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

  /** In key order, so two batches sharing devices never deadlock. */
  async lockDevices(tx: Database, region: Region, deviceIds: readonly string[]): Promise<void> {
    const keys = [...new Set(deviceIds.map((id) => deviceLockKey(region, id)))].sort((a, b) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    for (const key of keys)
      await tx.execute(sql`select pg_advisory_xact_lock(${key.toString()}::bigint)`);
  }

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

  /**
   * When the read model reads one of `deviceIds` next, of any account, if that is within the call
   * window or a read is under way now; a read overdue by more than {@link STALLED_READ_MS} is left
   * out, so a read model that cannot read a device never holds its background reads for good.
   */
  async #readModelReadDueIn(
    tx: Database,
    region: Region,
    deviceIds: readonly string[],
    nowMs: number,
  ): Promise<number | undefined> {
    const windowMs = this.budgetOf(region).windowMs;
    const rows = await tx
      .select({ nextReadAt: deviceReadState.nextReadAt, leaseUntil: deviceReadState.leaseUntil })
      .from(deviceReadState)
      .where(
        and(
          eq(deviceReadState.region, region),
          inArray(deviceReadState.deviceId, [...deviceIds]),
          eq(deviceReadState.bound, true),
          or(
            and(
              gt(deviceReadState.nextReadAt, new Date(nowMs - STALLED_READ_MS)),
              lte(deviceReadState.nextReadAt, new Date(nowMs + windowMs)),
            ),
            gt(deviceReadState.leaseUntil, new Date(nowMs)),
          ),
        ),
      );
    if (rows.length === 0) return undefined;
    return Math.max(
      ...rows.map((row) =>
        row.leaseUntil && row.leaseUntil.getTime() > nowMs
          ? nowMs
          : (row.nextReadAt?.getTime() ?? nowMs),
      ),
    );
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

/** Apart from the migrations' lock keys (`src/infra/database.ts`). */
export function deviceLockKey(region: Region, deviceId: string): bigint {
  return createHash('sha256')
    .update(`powerdeck device budget\0${region}\0${deviceId}`)
    .digest()
    .readBigInt64BE(0);
}
