import { and, asc, eq, gt, inArray, isNotNull, lt, lte, notInArray, or, sql } from 'drizzle-orm';
import { StatusRecordSchema, type CommandStatus, type StatusRecord } from '#domain/command.ts';
import type { PowerControl } from '#domain/power-control.ts';
import type { DeviceCommandChange } from '#domain/read-model.ts';
import type { OpenCommand, PendingConfirmation } from '#domain/refresh-policy.ts';
import type { Database } from '#infra/database.ts';
import {
  batchConfirmations,
  deviceCommandChanges,
  deviceCommands,
  deviceReadState,
  readModelAccounts,
  readModelNotices,
  siteBindingGenerations,
  unsupportedControls,
} from '../db/schema.ts';
import { ofAccount, ofDevice } from '../db/account-rows.ts';
import type { Queryable } from '../events/event-store.ts';
import type { Account, Person } from '#domain/account.ts';
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

export interface ConfirmationRow {
  ledgerEntryId: number;
  deviceId: string;
  batchCommandId: string | null;
  powerControl: PowerControl;
  startTime: string;
  endTime: string;
  sentAtMs: number;
  madeBy?: Person | undefined;
  madeByName?: string | undefined;
}

export interface ClaimedDevice {
  account: Account;
  deviceId: string;
  secretCiphertext: string;
  state: DeviceStateRow;
}

export const CHANGE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

const OPEN_STATUSES: CommandStatus[] = ['received', 'executing'];

/**
 * The read model's tables (docs/architecture.md, Read model). Writes about one device take its
 * state row's lock ({@link lockDevice}) first, so instances never interleave on a device.
 */
export class ReadModelStore {
  readonly db: Database;
  readonly cache = new DeviceReadCache<KnownCommand>();
  readonly #written = new WeakMap<object, Written[]>();

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

  #wrote(tx: Queryable, account: Account, drop: CacheDrop, kept?: KnownCommand): void {
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

  /** For an upstream that just forgot them itself (the sandbox's reset); never for the vendor. */
  async forgetAll(): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
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
    for (const deviceId of ids) this.#wrote(tx, account, { kind: 'state', deviceId });
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
    this.#wrote(tx, account, { kind: 'state', deviceId });
  }

  async commandsByIds(
    tx: Queryable,
    account: Account,
    deviceId: string,
    commandIds: readonly string[],
  ): Promise<Map<string, KnownCommand>> {
    const known = new Map<string, KnownCommand>();
    if (commandIds.length === 0) return known;
    const rows = await tx
      .select()
      .from(deviceCommands)
      .where(
        and(
          ofDevice(deviceCommands, account, deviceId),
          inArray(deviceCommands.commandId, [...new Set(commandIds)]),
        ),
      );
    for (const row of rows) {
      const command = knownOf(row);
      if (command) known.set(row.commandId, command);
    }
    return known;
  }

  /** docs/upstream.md, History. */
  async commandsMeeting(
    account: Account,
    deviceId: string,
    range: { startMs: number; endMs: number },
    status?: CommandStatus,
  ): Promise<StatusRecord[]> {
    const rows = await this.db
      .select({ record: deviceCommands.record })
      .from(deviceCommands)
      .where(
        and(
          ofDevice(deviceCommands, account, deviceId),
          lt(deviceCommands.windowStart, new Date(range.endMs)),
          gt(deviceCommands.windowEnd, new Date(range.startMs)),
          status ? eq(deviceCommands.status, status) : undefined,
        ),
      )
      .orderBy(asc(deviceCommands.windowStart), asc(deviceCommands.commandId));
    return rows.flatMap((row) => {
      const record = StatusRecordSchema.safeParse(row.record);
      return record.success ? [record.data] : [];
    });
  }

  async commandsOf(
    account: Account,
    refs: readonly { deviceId: string; commandId: string }[],
    tx: Queryable = this.db,
  ): Promise<Map<string, StatusRecord>> {
    const found = new Map<string, StatusRecord>();
    if (refs.length === 0) return found;
    const rows = await tx
      .select({ record: deviceCommands.record })
      .from(deviceCommands)
      .where(
        and(
          ofAccount(deviceCommands, account),
          inArray(deviceCommands.commandId, [...new Set(refs.map((ref) => ref.commandId))]),
          inArray(deviceCommands.deviceId, [...new Set(refs.map((ref) => ref.deviceId))]),
        ),
      );
    for (const row of rows) {
      const record = StatusRecordSchema.safeParse(row.record);
      if (record.success) found.set(commandKey(record.data.deviceId, record.data.id), record.data);
    }
    return found;
  }

  /** `madeBy` only for one first learnt. */
  async writeCommand(
    tx: Queryable,
    account: Account,
    record: StatusRecord,
    nowMs: number,
    madeBy?: { person: Person; name?: string | undefined },
  ): Promise<void> {
    const fields = {
      status: record.status,
      windowStart: new Date(record.startTime),
      windowEnd: new Date(record.endTime),
      batchCommandId: record.batchCommandId ?? null,
      record,
      updatedAt: new Date(nowMs),
    };
    const [row] = await tx
      .insert(deviceCommands)
      .values({
        ...account,
        deviceId: record.deviceId,
        commandId: record.id,
        ...fields,
        madeBy: madeBy?.person ?? null,
        madeByName: madeBy?.name ?? null,
        learntAt: new Date(nowMs),
      })
      .onConflictDoUpdate({
        target: [
          deviceCommands.region,
          deviceCommands.clientId,
          deviceCommands.deviceId,
          deviceCommands.commandId,
        ],
        set: {
          ...fields,
          // A batch's command is found after a read knew it.
          madeBy: sql`coalesce(${deviceCommands.madeBy}, excluded.made_by)`,
          madeByName: sql`coalesce(${deviceCommands.madeByName}, excluded.made_by_name)`,
        },
      })
      .returning();
    this.#wrote(
      tx,
      account,
      { kind: 'command', deviceId: record.deviceId, commandId: record.id },
      row ? knownOf(row) : undefined,
    );
  }

  async openCommands(tx: Queryable, account: Account, deviceId: string): Promise<OpenCommand[]> {
    const rows = await tx
      .select({
        status: deviceCommands.status,
        windowStart: deviceCommands.windowStart,
        windowEnd: deviceCommands.windowEnd,
      })
      .from(deviceCommands)
      .where(
        and(
          ofDevice(deviceCommands, account, deviceId),
          inArray(deviceCommands.status, OPEN_STATUSES),
        ),
      );
    return rows.map((row) => ({
      status: row.status === 'executing' ? 'executing' : 'received',
      startMs: row.windowStart.getTime(),
      endMs: row.windowEnd.getTime(),
    }));
  }

  /** Its lock held. */
  async appendChange(
    tx: Queryable,
    account: Account,
    change: DeviceCommandChange,
    madeByKey: string | undefined,
    nowMs: number,
  ): Promise<void> {
    await tx.insert(deviceCommandChanges).values({
      ...account,
      deviceId: change.deviceId,
      version: change.version,
      kind: change.kind,
      commandId: change.commandId,
      at: new Date(change.at),
      windowStart: new Date(change.startTime),
      windowEnd: new Date(change.endTime),
      cancelReason: change.cancelReason ?? null,
      batchCommandId: change.batchCommandId ?? null,
      madeByName: change.madeBy ?? null,
      madeByKey: madeByKey ?? null,
      createdAt: new Date(nowMs),
    });
  }

  /** `oldestKept`: the lowest version still kept (undefined: none). */
  async changesAfter(
    account: Account,
    deviceId: string,
    sinceVersion: number,
    exceptKey?: string,
  ): Promise<DeviceCommandChange[]> {
    const rows = await this.db
      .select()
      .from(deviceCommandChanges)
      .where(
        and(
          ofDevice(deviceCommandChanges, account, deviceId),
          gt(deviceCommandChanges.version, sinceVersion),
          exceptKey === undefined
            ? undefined
            : or(
                sql`${deviceCommandChanges.madeByKey} is null`,
                sql`${deviceCommandChanges.madeByKey} <> ${exceptKey}`,
              ),
        ),
      )
      .orderBy(asc(deviceCommandChanges.version));
    return rows.map((row) => ({
      version: row.version,
      kind: row.kind === 'commandCancelled' ? 'commandCancelled' : 'commandAdded',
      deviceId: row.deviceId,
      commandId: row.commandId,
      startTime: row.windowStart.toISOString(),
      endTime: row.windowEnd.toISOString(),
      at: row.at.toISOString(),
      ...(row.cancelReason ? { cancelReason: row.cancelReason as never } : {}),
      ...(row.batchCommandId ? { batchCommandId: row.batchCommandId } : {}),
      ...(row.madeByName ? { madeBy: row.madeByName } : {}),
    }));
  }

  async oldestKeptVersion(account: Account, deviceId: string): Promise<number | undefined> {
    const [row] = await this.db
      .select({ version: sql<number | null>`min(${deviceCommandChanges.version})` })
      .from(deviceCommandChanges)
      .where(ofDevice(deviceCommandChanges, account, deviceId));
    return row?.version === null || row?.version === undefined ? undefined : Number(row.version);
  }

  /** Again: nothing changes. */
  async addConfirmations(tx: Queryable, account: Account, rows: ConfirmationRow[]): Promise<void> {
    if (rows.length === 0) return;
    await tx
      .insert(batchConfirmations)
      .values(
        rows.map((row) => ({
          ...account,
          ledgerEntryId: row.ledgerEntryId,
          deviceId: row.deviceId,
          batchCommandId: row.batchCommandId,
          powerControl: row.powerControl,
          windowStart: new Date(row.startTime),
          windowEnd: new Date(row.endTime),
          sentAt: new Date(row.sentAtMs),
          madeBy: row.madeBy ?? null,
          madeByName: row.madeByName ?? null,
        })),
      )
      .onConflictDoNothing();
  }

  async confirmationsOf(
    tx: Queryable,
    account: Account,
    deviceId: string,
  ): Promise<ConfirmationRow[]> {
    const rows = await tx
      .select()
      .from(batchConfirmations)
      .where(ofDevice(batchConfirmations, account, deviceId))
      .orderBy(asc(batchConfirmations.sentAt));
    return rows.map((row) => ({
      ledgerEntryId: row.ledgerEntryId,
      deviceId: row.deviceId,
      batchCommandId: row.batchCommandId,
      powerControl: row.powerControl as PowerControl,
      startTime: row.windowStart.toISOString(),
      endTime: row.windowEnd.toISOString(),
      sentAtMs: row.sentAt.getTime(),
      ...(row.madeBy ? { madeBy: row.madeBy as Person } : {}),
      ...(row.madeByName ? { madeByName: row.madeByName } : {}),
    }));
  }

  async dropConfirmation(tx: Queryable, ledgerEntryId: number, deviceId: string): Promise<void> {
    await tx
      .delete(batchConfirmations)
      .where(
        and(
          eq(batchConfirmations.ledgerEntryId, ledgerEntryId),
          eq(batchConfirmations.deviceId, deviceId),
        ),
      );
  }

  async confirmedEntryIds(tx: Queryable = this.db): Promise<Set<number>> {
    const rows = await tx
      .selectDistinct({ id: batchConfirmations.ledgerEntryId })
      .from(batchConfirmations);
    return new Set(rows.map((row) => row.id));
  }

  static pendingOf(row: ConfirmationRow): PendingConfirmation {
    return {
      sentAtMs: row.sentAtMs,
      startMs: Date.parse(row.startTime),
      endMs: Date.parse(row.endTime),
    };
  }

  /** `FOR UPDATE SKIP LOCKED`, then the lease: no other instance takes them meanwhile. */
  async claimDue(nowMs: number, leaseUntilMs: number, limit: number): Promise<ClaimedDevice[]> {
    return this.transaction(async (tx) => {
      const now = new Date(nowMs);
      const rows = await tx
        .select()
        .from(deviceReadState)
        .where(
          and(
            eq(deviceReadState.bound, true),
            isNotNull(deviceReadState.nextReadAt),
            lte(deviceReadState.nextReadAt, now),
            or(sql`${deviceReadState.leaseUntil} is null`, lte(deviceReadState.leaseUntil, now)),
            sql`exists (select 1 from ${readModelAccounts} a where a.region = ${deviceReadState.region}
              and a.client_id = ${deviceReadState.clientId} and a.secret_ciphertext is not null)`,
          ),
        )
        .orderBy(asc(deviceReadState.nextReadAt))
        .limit(limit)
        .for('update', { skipLocked: true });
      const secrets = new Map<string, string>();
      for (const key of new Set(rows.map((row) => JSON.stringify([row.region, row.clientId])))) {
        const [region, clientId] = JSON.parse(key) as [Account['region'], string];
        const [account] = await tx
          .select({ secret: readModelAccounts.secretCiphertext })
          .from(readModelAccounts)
          .where(ofAccount(readModelAccounts, { region, clientId }));
        if (account?.secret) secrets.set(key, account.secret);
      }
      const claimed: ClaimedDevice[] = [];
      for (const state of rows) {
        const secret = secrets.get(JSON.stringify([state.region, state.clientId]));
        if (!secret) continue;
        const account = { region: state.region, clientId: state.clientId } as Account;
        await this.updateState(tx, account, state.deviceId, {
          leaseUntil: new Date(leaseUntilMs),
        });
        claimed.push({ account, deviceId: state.deviceId, secretCiphertext: secret, state });
      }
      return claimed;
    });
  }

  /**
   * With `allBound` (a whole site list), the account's unlisted devices are unbound. Devices whose
   * binding changed are dropped from the cache, where status polls check it (docs/security.md).
   */
  async markBound(
    tx: Queryable,
    account: Account,
    sites: readonly { siteId: string; deviceIds: readonly string[] }[],
    nowMs: number,
    allBound: boolean,
  ): Promise<{ added: string[]; changed: boolean }> {
    const rows = sites.flatMap((site) =>
      site.deviceIds.map((deviceId) => ({
        ...account,
        deviceId,
        siteId: site.siteId,
        updatedAt: new Date(nowMs),
      })),
    );
    const inserted =
      rows.length === 0
        ? []
        : await tx
            .insert(deviceReadState)
            .values(rows)
            .onConflictDoNothing()
            .returning({ deviceId: deviceReadState.deviceId });
    const listedIds = rows.map((row) => row.deviceId);
    // Unbinding cleared their next read: bound again, they are read as a new device is.
    const boundAgain = await this.unboundOf(account, listedIds, tx);
    const changed = [...inserted];
    for (const site of sites)
      if (site.deviceIds.length > 0)
        changed.push(
          ...(await tx
            .update(deviceReadState)
            .set({ siteId: site.siteId, bound: true, updatedAt: new Date(nowMs) })
            .where(
              and(
                ofAccount(deviceReadState, account),
                inArray(deviceReadState.deviceId, [...site.deviceIds]),
                or(
                  eq(deviceReadState.bound, false),
                  sql`${deviceReadState.siteId} is distinct from ${site.siteId}`,
                ),
              ),
            )
            .returning({ deviceId: deviceReadState.deviceId })),
        );
    if (allBound)
      changed.push(
        ...(await tx
          .update(deviceReadState)
          .set({ bound: false, nextReadAt: null, updatedAt: new Date(nowMs) })
          .where(
            and(
              ofAccount(deviceReadState, account),
              eq(deviceReadState.bound, true),
              listedIds.length > 0 ? notInArray(deviceReadState.deviceId, listedIds) : undefined,
            ),
          )
          .returning({ deviceId: deviceReadState.deviceId })),
      );
    for (const { deviceId } of changed) this.#wrote(tx, account, { kind: 'state', deviceId });
    return {
      added: [...inserted.map((row) => row.deviceId), ...boundAgain],
      changed: changed.length > 0,
    };
  }

  /** Taken before a site list is read, compared by {@link lockBindings} when it is written. */
  async bindingsGeneration(account: Account): Promise<number> {
    const [row] = await this.db
      .select({ generation: siteBindingGenerations.generation })
      .from(siteBindingGenerations)
      .where(ofAccount(siteBindingGenerations, account));
    return row?.generation ?? 0;
  }

  /** Orders a site list written after a binding change: an older generation predates it. */
  async lockBindings(tx: Queryable, account: Account, bump: boolean): Promise<number> {
    const [row] = await tx
      .insert(siteBindingGenerations)
      .values({ ...account, generation: bump ? 1 : 0 })
      .onConflictDoUpdate({
        target: [siteBindingGenerations.region, siteBindingGenerations.clientId],
        set: {
          generation: bump
            ? sql`${siteBindingGenerations.generation} + 1`
            : sql`${siteBindingGenerations.generation}`,
        },
      })
      .returning({ generation: siteBindingGenerations.generation });
    return row?.generation ?? 0;
  }

  async unboundOf(
    account: Account,
    deviceIds: readonly string[],
    tx: Queryable = this.db,
  ): Promise<Set<string>> {
    if (deviceIds.length === 0) return new Set();
    const rows = await tx
      .select({ deviceId: deviceReadState.deviceId })
      .from(deviceReadState)
      .where(
        and(
          ofAccount(deviceReadState, account),
          inArray(deviceReadState.deviceId, [...deviceIds]),
          eq(deviceReadState.bound, false),
        ),
      );
    return new Set(rows.map((row) => row.deviceId));
  }

  async openCommandsOfSite(tx: Queryable, account: Account, siteId: string): Promise<number> {
    const devices = tx
      .select({ deviceId: deviceReadState.deviceId })
      .from(deviceReadState)
      .where(and(ofAccount(deviceReadState, account), eq(deviceReadState.siteId, siteId)));
    const [row] = await tx
      .select({ open: sql<number>`count(*)::int` })
      .from(deviceCommands)
      .where(
        and(
          ofAccount(deviceCommands, account),
          inArray(deviceCommands.deviceId, devices),
          inArray(deviceCommands.status, OPEN_STATUSES),
        ),
      );
    return row?.open ?? 0;
  }

  /** Dropped from the cache, where status polls check it. */
  async markSiteUnbound(
    tx: Queryable,
    account: Account,
    siteId: string,
    nowMs: number,
  ): Promise<string[]> {
    const rows = await tx
      .update(deviceReadState)
      .set({ bound: false, nextReadAt: null, updatedAt: new Date(nowMs) })
      .where(
        and(
          ofAccount(deviceReadState, account),
          eq(deviceReadState.siteId, siteId),
          eq(deviceReadState.bound, true),
        ),
      )
      .returning({ deviceId: deviceReadState.deviceId });
    for (const { deviceId } of rows) this.#wrote(tx, account, { kind: 'state', deviceId });
    return rows.map((row) => row.deviceId);
  }

  async learnUnsupported(
    tx: Queryable,
    account: Account,
    deviceId: string,
    controls: readonly string[],
    commandId: string,
    nowMs: number,
  ): Promise<boolean> {
    if (controls.length === 0) return false;
    const rows = await tx
      .insert(unsupportedControls)
      .values(
        controls.map((control) => ({
          ...account,
          deviceId,
          control,
          commandId,
          learntAt: new Date(nowMs),
        })),
      )
      .onConflictDoNothing()
      .returning({ control: unsupportedControls.control });
    return rows.length > 0;
  }

  async unsupportedOf(account: Account): Promise<Map<string, Set<string>>> {
    const rows = await this.db
      .select({ deviceId: unsupportedControls.deviceId, control: unsupportedControls.control })
      .from(unsupportedControls)
      .where(ofAccount(unsupportedControls, account));
    const byDevice = new Map<string, Set<string>>();
    for (const row of rows) {
      const controls = byDevice.get(row.deviceId) ?? new Set<string>();
      controls.add(row.control);
      byDevice.set(row.deviceId, controls);
    }
    return byDevice;
  }

  /** A command that started ran them. */
  async controlsUsed(tx: Queryable, account: Account, deviceId: string): Promise<Set<string>> {
    const rows = await tx
      .select({ record: deviceCommands.record })
      .from(deviceCommands)
      .where(
        and(
          ofDevice(deviceCommands, account, deviceId),
          inArray(deviceCommands.status, ['executing', 'completed']),
        ),
      );
    const used = new Set<string>();
    for (const row of rows) {
      const record = StatusRecordSchema.safeParse(row.record);
      if (!record.success) continue;
      for (const [control, value] of Object.entries(record.data.powerControl))
        if (value !== undefined) used.add(control);
    }
    return used;
  }

  async rememberAccount(account: Account, secretCiphertext: string, nowMs: number): Promise<void> {
    await this.db
      .insert(readModelAccounts)
      .values({ ...account, secretCiphertext, seenAt: new Date(nowMs) })
      .onConflictDoUpdate({
        target: [readModelAccounts.region, readModelAccounts.clientId],
        set: { secretCiphertext, seenAt: new Date(nowMs) },
      });
  }

  async forgetAccountSecret(account: Account): Promise<void> {
    await this.db
      .update(readModelAccounts)
      .set({ secretCiphertext: null })
      .where(ofAccount(readModelAccounts, account));
  }

  async prune(seenBeforeMs: number, nowMs: number): Promise<void> {
    await this.db.execute(sql`
      update ${readModelAccounts} a set secret_ciphertext = null
      where a.secret_ciphertext is not null and a.seen_at < ${new Date(seenBeforeMs)}
        and not exists (select 1 from ${deviceReadState} s
          where s.region = a.region and s.client_id = a.client_id and s.bound
            and s.has_open_commands)
        and not exists (select 1 from ${batchConfirmations} c
          where c.region = a.region and c.client_id = a.client_id)`);
    await this.db
      .delete(deviceCommandChanges)
      .where(lt(deviceCommandChanges.createdAt, new Date(nowMs - CHANGE_RETENTION_MS)));
  }

  /** True when this call wrote it. */
  async noticeOnce(tx: Queryable, key: string, nowMs: number): Promise<boolean> {
    const rows = await tx
      .insert(readModelNotices)
      .values({ key, createdAt: new Date(nowMs) })
      .onConflictDoNothing()
      .returning({ key: readModelNotices.key });
    return rows.length > 0;
  }
}

export function commandKey(deviceId: string, commandId: string): string {
  return `${deviceId} ${commandId}`;
}

function knownOf(row: typeof deviceCommands.$inferSelect): KnownCommand | undefined {
  const record = StatusRecordSchema.safeParse(row.record);
  if (!record.success) return undefined;
  return {
    record: record.data,
    ...(row.madeBy ? { madeBy: row.madeBy as Person } : {}),
    ...(row.madeByName ? { madeByName: row.madeByName } : {}),
  };
}
