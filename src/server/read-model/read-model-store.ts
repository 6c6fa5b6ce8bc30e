import { and, asc, eq, isNotNull, lt, lte, notInArray, inArray, or, sql } from 'drizzle-orm';
import type { PowerControl } from '#domain/power-control.ts';
import type { PendingConfirmation } from '#domain/refresh-policy.ts';
import type { Account, Person } from '#domain/account.ts';
import {
  batchConfirmations,
  deviceCommandChanges,
  deviceCommands,
  deviceReadState,
  readModelAccounts,
  readModelNotices,
  siteBindingGenerations,
} from '../db/schema.ts';
import { ofAccount, ofDevice } from '../db/account-rows.ts';
import type { Queryable } from '../events/event-store.ts';
import { DeviceCommandTables } from './device-command-tables.ts';
import { OPEN_STATUSES, type DeviceStateRow } from './read-model-tables.ts';

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

/**
 * The read model's tables (docs/architecture.md, Read model): beside those it extends, the batch
 * confirmations, read claims, site bindings and the accounts whose devices are read.
 */
export class ReadModelStore extends DeviceCommandTables {
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
    for (const { deviceId } of changed) this.wrote(tx, account, { kind: 'state', deviceId });
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
    for (const { deviceId } of rows) this.wrote(tx, account, { kind: 'state', deviceId });
    return rows.map((row) => row.deviceId);
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
