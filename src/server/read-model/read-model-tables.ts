import { and, asc, inArray, sql } from 'drizzle-orm';
import { StatusRecordSchema, type CommandStatus, type StatusRecord } from '#domain/command.ts';
import type { Account, Person } from '#domain/account.ts';
import type { Database } from '#infra/database.ts';
import { deviceCommandChanges, deviceCommands, deviceReadState } from '../db/schema.ts';
import { ofAccount, ofDevice } from '../db/account-rows.ts';
import type { Queryable } from '../events/event-store.ts';
import { DeviceReadCache, type CacheDrop } from './device-read-cache.ts';

export type DeviceStateRow = typeof deviceReadState.$inferSelect;

interface Written {
  account: Account;
  drop: CacheDrop;
  kept?: KnownCommand;
}

export interface KnownCommand {
  record: StatusRecord;
  madeBy?: Person | undefined;
  madeByName?: string | undefined;
}

export const OPEN_STATUSES: CommandStatus[] = ['received', 'executing'];

/**
 * The read model's transaction, cache and device state rows (docs/architecture.md, Read model).
 * Writes about one device take its state row's lock ({@link lockDevice}) first, so instances
 * never interleave on a device.
 */
export class ReadModelTables {
  readonly db: Database;
  readonly cache = new DeviceReadCache<KnownCommand>();
  readonly #written = new WeakMap<object, Written[]>();
  #upstreamGeneration = 0;

  constructor(db: Database) {
    this.db = db;
  }

  /**
   * Every transaction that writes devices goes through here: its writes are dropped from
   * {@link cache} when it ends, and its commands kept once committed, so the first poll is answered
   * from memory. Safe: the row lock ordered this write after every earlier one.
   */
  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const written: Written[] = [];
    let committed = false;
    try {
      const result = await this.db.transaction((tx) => {
        this.#written.set(tx, written);
        return work(tx);
      });
      committed = true;
      return result;
    } finally {
      for (const { account, drop } of written) this.cache.drop(account, [drop]);
      if (committed) this.#keep(written);
    }
  }

  protected wrote(tx: Queryable, account: Account, drop: CacheDrop, kept?: KnownCommand): void {
    const entry: Written = {
      account: { region: account.region, clientId: account.clientId },
      drop,
      ...(kept ? { kept } : {}),
    };
    const written = this.#written.get(tx);
    if (written) {
      written.push(entry);
      return;
    }
    this.cache.drop(account, [drop]);
    // A transaction not opened here may still roll back.
    if (tx === this.db) this.#keep([entry]);
  }

  #keep(written: readonly Written[]): void {
    const epoch = this.cache.epoch;
    for (const { account, drop, kept } of written)
      if (kept) this.cache.keepCommand(epoch, account, drop.deviceId, kept);
  }

  /**
   * Bumped by {@link forgetAll}. A device read records the generation it began in, and its answer
   * is kept only if no reset came since: the old upstream's answer must not outlive it. In memory:
   * only `npm start`'s single instance, beside the sandbox, forgets its upstream.
   */
  get upstreamGeneration(): number {
    return this.#upstreamGeneration;
  }

  /** For an upstream that just forgot them itself (the sandbox's reset); never for the vendor. */
  async forgetAll(): Promise<void> {
    this.#upstreamGeneration += 1;
    try {
      await this.db.transaction(async (tx) => {
        // Waits for the writes that checked the generation before it moved (they hold a device's
        // row lock); every later one sees it moved.
        await tx.execute(sql`lock table ${deviceReadState} in share row exclusive mode`);
        await tx.delete(deviceCommandChanges);
        await tx.delete(deviceCommands);
        await tx.delete(deviceReadState);
      });
    } finally {
      this.cache.clear();
    }
  }

  /** Created when missing, locked in device order so two transactions never deadlock. */
  async lockDevices(
    tx: Queryable,
    account: Account,
    deviceIds: readonly string[],
    nowMs: number,
  ): Promise<Map<string, DeviceStateRow>> {
    const ids = [...new Set(deviceIds)].sort();
    const states = new Map<string, DeviceStateRow>();
    if (ids.length === 0) return states;
    await tx
      .insert(deviceReadState)
      .values(ids.map((deviceId) => ({ ...account, deviceId, updatedAt: new Date(nowMs) })))
      .onConflictDoNothing();
    const rows = await tx
      .select()
      .from(deviceReadState)
      .where(and(ofAccount(deviceReadState, account), inArray(deviceReadState.deviceId, ids)))
      .orderBy(asc(deviceReadState.deviceId))
      .for('update');
    for (const row of rows) states.set(row.deviceId, row);
    // A row may have been created.
    for (const deviceId of ids) this.wrote(tx, account, { kind: 'state', deviceId });
    return states;
  }

  async lockDevice(
    tx: Queryable,
    account: Account,
    deviceId: string,
    nowMs: number,
  ): Promise<DeviceStateRow> {
    const row = (await this.lockDevices(tx, account, [deviceId], nowMs)).get(deviceId);
    if (!row) throw new Error(`the read model's row of ${deviceId} was not written`);
    return row;
  }

  async stateOf(
    account: Account,
    deviceId: string,
    tx: Queryable = this.db,
  ): Promise<DeviceStateRow | undefined> {
    const [row] = await tx
      .select()
      .from(deviceReadState)
      .where(ofDevice(deviceReadState, account, deviceId));
    return row;
  }

  /** Its lock held. */
  async updateState(
    tx: Queryable,
    account: Account,
    deviceId: string,
    changes: Partial<Omit<DeviceStateRow, 'region' | 'clientId' | 'deviceId'>>,
  ): Promise<void> {
    await tx
      .update(deviceReadState)
      .set(changes)
      .where(ofDevice(deviceReadState, account, deviceId));
    this.wrote(tx, account, { kind: 'state', deviceId });
  }
}

export function commandKey(deviceId: string, commandId: string): string {
  return `${deviceId} ${commandId}`;
}

export function knownOf(row: typeof deviceCommands.$inferSelect): KnownCommand | undefined {
  const record = StatusRecordSchema.safeParse(row.record);
  if (!record.success) return undefined;
  return {
    record: record.data,
    ...(row.madeBy ? { madeBy: row.madeBy as Person } : {}),
    ...(row.madeByName ? { madeByName: row.madeByName } : {}),
  };
}
