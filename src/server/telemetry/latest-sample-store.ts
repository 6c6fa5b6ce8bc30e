import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Account } from '#domain/account.ts';
import type { TelemetrySample } from '#domain/telemetry.ts';
import type { Database } from '#infra/database.ts';
import { ofAccount } from '../db/account-rows.ts';
import { deviceLatestSamples, deviceReadState, readModelAccounts } from '../db/schema.ts';

/** Device IDs per `in (...)` list. */
const ID_CHUNK = 5_000;
/** Rows per insert: nine parameters each. */
const ROW_CHUNK = 1_000;

/** Bound devices of one account due for their latest sample, claimed together. */
export interface ClaimedSnapshot {
  account: Account;
  /** The account's sealed secret, to read under (the read model's). */
  secretCiphertext: string;
  deviceIds: string[];
}

/** A bound device and the latest sample read of it, if any. */
export interface LatestOfDevice {
  deviceId: string;
  siteId: string;
  sample?: TelemetrySample | undefined;
}

/**
 * The latest sample of each bound device (`bff.device_latest_samples`; docs/verification.md,
 * Fleet picture) and when it is read again. Which devices are bound is the read model's
 * (`device_read_state`): a device of a site unbound is neither read nor answered. Times on the
 * upstream's clock.
 */
export class LatestSampleStore {
  readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /**
   * Up to `limit` bound devices, of accounts the read model can read under, whose latest sample
   * is due (or was never read), grouped by account, each held until `leaseUntilMs`. A device two
   * instances look at together is claimed by one: its row is taken only where still due.
   */
  async claimDue(nowMs: number, leaseUntilMs: number, limit: number): Promise<ClaimedSnapshot[]> {
    const now = new Date(nowMs);
    const r = deviceReadState;
    const l = deviceLatestSamples;
    const candidates = await this.db
      .select({ region: r.region, clientId: r.clientId, deviceId: r.deviceId })
      .from(r)
      .leftJoin(
        l,
        and(eq(l.region, r.region), eq(l.clientId, r.clientId), eq(l.deviceId, r.deviceId)),
      )
      .where(
        and(
          eq(r.bound, true),
          or(isNull(l.nextReadAt), lte(l.nextReadAt, now)),
          sql`exists (select 1 from ${readModelAccounts} a where a.region = ${r.region}
            and a.client_id = ${r.clientId} and a.secret_ciphertext is not null)`,
        ),
      )
      .orderBy(
        sql`${l.nextReadAt} asc nulls first`,
        asc(r.region),
        asc(r.clientId),
        asc(r.deviceId),
      )
      .limit(limit);
    if (candidates.length === 0) return [];
    const lease = new Date(leaseUntilMs);
    const claimed = await this.db
      .insert(l)
      .values(candidates.map((row) => ({ ...row, nextReadAt: lease })))
      .onConflictDoUpdate({
        target: [l.region, l.clientId, l.deviceId],
        set: { nextReadAt: lease },
        setWhere: lte(l.nextReadAt, now),
      })
      .returning({ region: l.region, clientId: l.clientId, deviceId: l.deviceId });
    const byAccount = new Map<string, ClaimedSnapshot>();
    for (const row of claimed) {
      const key = JSON.stringify([row.region, row.clientId]);
      const group = byAccount.get(key) ?? {
        account: { region: row.region, clientId: row.clientId } as Account,
        secretCiphertext: '',
        deviceIds: [],
      };
      group.deviceIds.push(row.deviceId);
      byAccount.set(key, group);
    }
    for (const group of byAccount.values()) {
      const [account] = await this.db
        .select({ secret: readModelAccounts.secretCiphertext })
        .from(readModelAccounts)
        .where(ofAccount(readModelAccounts, group.account));
      group.secretCiphertext = account?.secret ?? '';
    }
    return [...byAccount.values()].filter((group) => group.secretCiphertext !== '');
  }

  /**
   * Keeps the samples read and sets when each device is read again: `nextReadAtMs` for those read
   * or not answered (an offline device keeps its last sample), its own time for each deferred.
   */
  async save(
    account: Account,
    read: {
      deviceIds: readonly string[];
      samples: ReadonlyMap<string, TelemetrySample>;
      deferred: ReadonlyMap<string, number>;
      nowMs: number;
      nextReadAtMs: number;
    },
  ): Promise<void> {
    const l = deviceLatestSamples;
    await this.db.transaction(async (tx) => {
      for (const [deviceId, sample] of read.samples)
        await tx
          .update(l)
          .set({
            sampledAt: new Date(sample.atMs),
            batteryPowerW: sample.batteryPowerW,
            socPercent: sample.socPercent,
            gridPowerW: sample.gridPowerW,
            pvPowerW: sample.pvPowerW,
            readAt: new Date(read.nowMs),
            nextReadAt: new Date(read.nextReadAtMs),
          })
          .where(and(ofAccount(l, account), eq(l.deviceId, deviceId)));
      for (const [deviceId, atMs] of read.deferred)
        await tx
          .update(l)
          .set({ nextReadAt: new Date(atMs) })
          .where(and(ofAccount(l, account), eq(l.deviceId, deviceId)));
      const unanswered = read.deviceIds.filter(
        (deviceId) => !read.samples.has(deviceId) && !read.deferred.has(deviceId),
      );
      if (unanswered.length > 0)
        await tx
          .update(l)
          .set({ nextReadAt: new Date(read.nextReadAtMs) })
          .where(and(ofAccount(l, account), inArray(l.deviceId, unanswered)));
    });
  }

  /** Sets when the devices are looked at again, nothing read (no sign-in, or a failed read). */
  async later(account: Account, deviceIds: readonly string[], atMs: number): Promise<void> {
    if (deviceIds.length === 0) return;
    const l = deviceLatestSamples;
    await this.db
      .update(l)
      .set({ nextReadAt: new Date(atMs) })
      .where(and(ofAccount(l, account), inArray(l.deviceId, [...deviceIds])));
  }

  /** Every bound device of the account with its site, and its latest sample when one was read. */
  async latestOf(account: Account): Promise<LatestOfDevice[]> {
    const r = deviceReadState;
    const l = deviceLatestSamples;
    const rows = await this.db
      .select({
        deviceId: r.deviceId,
        siteId: r.siteId,
        sampledAt: l.sampledAt,
        batteryPowerW: l.batteryPowerW,
        socPercent: l.socPercent,
        gridPowerW: l.gridPowerW,
        pvPowerW: l.pvPowerW,
      })
      .from(r)
      .leftJoin(
        l,
        and(eq(l.region, r.region), eq(l.clientId, r.clientId), eq(l.deviceId, r.deviceId)),
      )
      .where(and(ofAccount(r, account), eq(r.bound, true)));
    return rows.flatMap((row) => {
      if (row.siteId === null) return [];
      const sample =
        row.sampledAt === null
          ? undefined
          : {
              atMs: row.sampledAt.getTime(),
              batteryPowerW: row.batteryPowerW ?? 0,
              socPercent: row.socPercent ?? 0,
              gridPowerW: row.gridPowerW ?? 0,
              pvPowerW: row.pvPowerW ?? 0,
            };
      return [{ deviceId: row.deviceId, siteId: row.siteId, sample }];
    });
  }

  /**
   * The stored latest sample of each listed device and when the vendor was last asked for it
   * (`readAtMs`), bound or not; a device never read is absent.
   */
  async samplesOf(
    account: Account,
    deviceIds: readonly string[],
  ): Promise<Map<string, { sample?: TelemetrySample | undefined; readAtMs?: number | undefined }>> {
    const l = deviceLatestSamples;
    const found = new Map<
      string,
      { sample?: TelemetrySample | undefined; readAtMs?: number | undefined }
    >();
    // Chunks keep each statement's parameters well under PostgreSQL's 65,535.
    for (let at = 0; at < deviceIds.length; at += ID_CHUNK) {
      const rows = await this.db
        .select()
        .from(l)
        .where(and(ofAccount(l, account), inArray(l.deviceId, deviceIds.slice(at, at + ID_CHUNK))));
      for (const row of rows)
        found.set(row.deviceId, {
          sample:
            row.sampledAt === null
              ? undefined
              : {
                  atMs: row.sampledAt.getTime(),
                  batteryPowerW: row.batteryPowerW ?? 0,
                  socPercent: row.socPercent ?? 0,
                  gridPowerW: row.gridPowerW ?? 0,
                  pvPowerW: row.pvPowerW ?? 0,
                },
          readAtMs: row.readAt?.getTime(),
        });
    }
    return found;
  }

  /**
   * Keeps a snapshot read before sending (docs/verification.md, Deliverable power before
   * sending): each sample read, and for every device asked (answered or not) that the vendor was
   * asked at `nowMs`, so it is not asked again for a few minutes. A device the fleet snapshot
   * never claimed gets its row, due for that snapshot at `nextReadAtMs`; a known row keeps its due
   * time.
   */
  async keepSnapshot(
    account: Account,
    read: {
      asked: readonly string[];
      samples: ReadonlyMap<string, TelemetrySample>;
      nowMs: number;
      nextReadAtMs: number;
    },
  ): Promise<void> {
    if (read.asked.length === 0) return;
    const l = deviceLatestSamples;
    const readAt = new Date(read.nowMs);
    const nextReadAt = new Date(read.nextReadAtMs);
    const key = { region: account.region, clientId: account.clientId };
    await this.db.transaction(async (tx) => {
      for (let at = 0; at < read.asked.length; at += ROW_CHUNK) {
        const rows = read.asked.slice(at, at + ROW_CHUNK).map((deviceId) => {
          const sample = read.samples.get(deviceId);
          return {
            ...key,
            deviceId,
            readAt,
            nextReadAt,
            ...(sample
              ? {
                  sampledAt: new Date(sample.atMs),
                  batteryPowerW: sample.batteryPowerW,
                  socPercent: sample.socPercent,
                  gridPowerW: sample.gridPowerW,
                  pvPowerW: sample.pvPowerW,
                }
              : {}),
          };
        });
        await tx
          .insert(l)
          .values(rows)
          .onConflictDoUpdate({
            target: [l.region, l.clientId, l.deviceId],
            set: {
              readAt: sql`excluded.read_at`,
              // An unanswered device keeps the sample it gave last.
              sampledAt: sql`coalesce(excluded.sampled_at, ${l.sampledAt})`,
              batteryPowerW: sql`case when excluded.sampled_at is null then ${l.batteryPowerW} else excluded.battery_power_w end`,
              socPercent: sql`case when excluded.sampled_at is null then ${l.socPercent} else excluded.soc_percent end`,
              gridPowerW: sql`case when excluded.sampled_at is null then ${l.gridPowerW} else excluded.grid_power_w end`,
              pvPowerW: sql`case when excluded.sampled_at is null then ${l.pvPowerW} else excluded.pv_power_w end`,
            },
          });
      }
    });
  }

  /** For an upstream that just forgot its devices (the sandbox's reset); never for the vendor. */
  async forgetAll(): Promise<void> {
    await this.db.delete(deviceLatestSamples);
  }
}
