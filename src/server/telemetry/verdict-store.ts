import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Account } from '#domain/account.ts';
import { StatusRecordSchema, type StatusRecord } from '#domain/command.ts';
import {
  SampleColumnsSchema,
  type CommandVerdictRecord,
  type SampleColumns,
} from '#domain/verdict-answer.ts';
import {
  DeviceCommandVerdictSchema,
  VerdictSchema,
  type DeviceCommandVerdict,
  type Verdict,
} from '#domain/verdict.ts';
import type { Database } from '#infra/database.ts';
import { ofAccount, ofDevice } from '../db/account-rows.ts';
import {
  commandVerdicts,
  deviceCommands,
  deviceReadState,
  deviceTelemetrySettings,
  readModelAccounts,
} from '../db/schema.ts';
import { webhookLinks } from '../webhooks/webhook-links.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import type { DeviceTelemetrySettings } from '../upstream/upstream-api.ts';

/** Device IDs per `in (...)` list, well under PostgreSQL's 65,535 parameters. */
const ID_CHUNK = 5_000;

/** One device command's verification: the key of its row. */
export interface VerdictKey {
  region: Account['region'];
  clientId: string;
  deviceId: string;
  commandId: string;
}

/** A command to verify, with its effective window and when (upstream clock, epoch ms). */
export interface PlannedVerdict {
  record: StatusRecord;
  windowStartMs: number;
  windowEndMs: number;
  dueAtMs: number;
}

export interface VerdictRow extends VerdictKey {
  record: StatusRecord;
  commandStatus: string;
  windowStartMs: number;
  windowEndMs: number;
  dueAtMs: number | undefined;
  verdict: DeviceCommandVerdict | undefined;
  computedAtMs: number | undefined;
  samplingPeriodMs: number | undefined;
  samples: SampleColumns | undefined;
  readToMs: number | undefined;
  telemetryCalls: number;
  failures: number;
}

export interface ClaimedVerdict {
  key: VerdictKey;
  /** The account's sealed secret, to read under (the read model's). */
  secretCiphertext: string;
}

/**
 * The verdicts kept beside the ledger (`bff.command_verdicts`; docs/verification.md): pending rows
 * with when they are due, claimed with `FOR UPDATE SKIP LOCKED` and a lease so one instance
 * verifies each, then the verdict and the window's samples. Times on the upstream's clock.
 */
export class VerdictStore {
  readonly db: Database;

  readonly #webhooks: WebhookOutbox | undefined;

  /** @param webhooks told of each verdict stored (`deviceCommand.verdict`), in its transaction. */
  constructor(db: Database, webhooks?: WebhookOutbox) {
    this.db = db;
    this.#webhooks = webhooks;
  }

  /**
   * Plans the verification of each command: a new one is due at `dueAtMs`; a known one again only
   * when its effective window moved or it was cancelled since (its verdict may change), otherwise
   * it keeps its due time or its verdict.
   */
  async plan(account: Account, planned: readonly PlannedVerdict[], nowMs: number): Promise<void> {
    if (planned.length === 0) return;
    const t = commandVerdicts;
    const changed = sql`(${t.windowStart} is distinct from excluded.window_start
      or ${t.windowEnd} is distinct from excluded.window_end
      or (excluded.command_status = 'cancelled' and ${t.commandStatus} <> 'cancelled'))`;
    await this.db
      .insert(t)
      .values(
        planned.map((item) => ({
          region: account.region,
          clientId: account.clientId,
          deviceId: item.record.deviceId,
          commandId: item.record.id,
          commandStatus: item.record.status,
          record: item.record,
          windowStart: new Date(item.windowStartMs),
          windowEnd: new Date(item.windowEndMs),
          dueAt: new Date(item.dueAtMs),
          createdAt: new Date(nowMs),
        })),
      )
      .onConflictDoUpdate({
        target: [t.region, t.clientId, t.deviceId, t.commandId],
        set: {
          record: sql`excluded.record`,
          commandStatus: sql`excluded.command_status`,
          dueAt: sql`case when ${changed} then excluded.due_at else ${t.dueAt} end`,
          windowStart: sql`excluded.window_start`,
          windowEnd: sql`excluded.window_end`,
        },
      });
  }

  /**
   * Up to `limit` due rows of accounts the read model can read under, oldest due first, each held
   * until `leaseUntilMs`.
   */
  async claimDue(nowMs: number, leaseUntilMs: number, limit: number): Promise<ClaimedVerdict[]> {
    const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
    // One statement: 10,000 rows due at once are claimed in 100 statements, not 10,000.
    const result = await this.db.execute(sql`
      update ${commandVerdicts} v
      set lease_until = case when a.secret_ciphertext is null
        then ${at(nowMs + NO_SIGN_IN_WAIT_MS)} else ${at(leaseUntilMs)} end
      from (
        select region, client_id, device_id, command_id from ${commandVerdicts}
        where due_at is not null and due_at <= ${at(nowMs)}
          and (lease_until is null or lease_until <= ${at(nowMs)})
        order by due_at limit ${limit} for update skip locked
      ) d
      left join ${readModelAccounts} a on a.region = d.region and a.client_id = d.client_id
      where v.region = d.region and v.client_id = d.client_id
        and v.device_id = d.device_id and v.command_id = d.command_id
      returning v.region, v.client_id, v.device_id, v.command_id, a.secret_ciphertext`);
    const rows = (result as unknown as { rows: Record<string, string | null>[] }).rows;
    // Without the account's sign-in nothing can be read: it waits; a later sign-in brings it back.
    return rows.flatMap((row) =>
      row.secret_ciphertext
        ? [
            {
              key: {
                region: row.region as Account['region'],
                clientId: row.client_id as string,
                deviceId: row.device_id as string,
                commandId: row.command_id as string,
              },
              secretCiphertext: row.secret_ciphertext,
            },
          ]
        : [],
    );
  }

  /**
   * Takes a claimed row for its run: only while it still holds the lease its claim set (a later
   * claim of the row, after that lease ran out, wins), held until `leaseUntilMs`.
   *
   * @returns the account's sealed secret, or undefined when the claim was lost.
   */
  async take(
    key: VerdictKey,
    claimedLeaseUntilMs: number,
    leaseUntilMs: number,
  ): Promise<string | undefined> {
    const t = commandVerdicts;
    const [row] = await this.db
      .update(t)
      .set({ leaseUntil: new Date(leaseUntilMs) })
      .where(
        and(this.#of(key), eq(t.leaseUntil, new Date(claimedLeaseUntilMs)), isNotNull(t.dueAt)),
      )
      .returning({
        // The key's own account: a column of the updated table here would be written unqualified
        // and read as the subquery's own, matching every account.
        secret: sql<string | null>`(select a.secret_ciphertext from ${readModelAccounts} a
          where a.region = ${key.region} and a.client_id = ${key.clientId})`,
      });
    return row?.secret ?? undefined;
  }

  async find(key: VerdictKey): Promise<VerdictRow | undefined> {
    const [row] = await this.db.select().from(commandVerdicts).where(this.#of(key));
    return row ? rowOf(row) : undefined;
  }

  /** A part of the window read: kept, and the rest waits for `dueAtMs` (the next read slot). */
  async saveProgress(
    key: VerdictKey,
    progress: { samples: SampleColumns; readToMs: number; calls: number; dueAtMs: number },
  ): Promise<void> {
    await this.db
      .update(commandVerdicts)
      .set({
        samples: progress.samples,
        readTo: new Date(progress.readToMs),
        telemetryCalls: sql`${commandVerdicts.telemetryCalls} + ${progress.calls}`,
        dueAt: new Date(progress.dueAtMs),
        leaseUntil: null,
      })
      .where(this.#of(key));
  }

  /**
   * Stores the verdict and, in the same transaction, its `deviceCommand.verdict` webhook event.
   * @returns false when the command's row is gone (the sandbox's reset forgot it): nothing written.
   */
  async saveVerdict(
    key: VerdictKey,
    result: {
      record: StatusRecord;
      windowStartMs: number;
      windowEndMs: number;
      verdict: DeviceCommandVerdict;
      samplingPeriodMs: number;
      samples: SampleColumns;
      readToMs: number;
      calls: number;
      computedAtMs: number;
    },
  ): Promise<boolean> {
    const webhooks = this.#webhooks;
    if (!webhooks) return this.#writeVerdict(this.db, key, result);
    return this.db.transaction(async (txn) => {
      const tx = txn as unknown as Database;
      // Its row gone (the sandbox's reset forgot it meanwhile), nothing is told.
      if (!(await this.#writeVerdict(tx, key, result))) return false;
      const { deviceId, commandId } = key;
      // The device's site as the read model knows it, for the endpoints limited to sites.
      const [state] = await tx
        .select({ siteId: deviceReadState.siteId })
        .from(deviceReadState)
        .where(ofDevice(deviceReadState, key, deviceId));
      const siteId = state?.siteId ?? undefined;
      await webhooks.record(
        { region: key.region, clientId: key.clientId },
        {
          type: 'deviceCommand.verdict',
          data: {
            deviceId,
            commandId,
            ...(siteId ? { siteId } : {}),
            ...(result.record.batchCommandId
              ? { batchCommandId: result.record.batchCommandId }
              : {}),
            state: result.verdict.verdict,
            links: {
              verdicts: webhookLinks.deviceVerdicts(deviceId),
              command: webhookLinks.command(deviceId, commandId),
            },
          },
        },
        { tx },
      );
      return true;
    });
  }

  async #writeVerdict(
    db: Database,
    key: VerdictKey,
    result: Parameters<VerdictStore['saveVerdict']>[1],
  ): Promise<boolean> {
    const written = await db
      .update(commandVerdicts)
      .set({
        record: result.record,
        commandStatus: result.record.status,
        windowStart: new Date(result.windowStartMs),
        windowEnd: new Date(result.windowEndMs),
        verdict: DeviceCommandVerdictSchema.parse(result.verdict),
        samplingPeriodMs: result.samplingPeriodMs,
        samples: result.samples,
        readTo: new Date(result.readToMs),
        telemetryCalls: sql`${commandVerdicts.telemetryCalls} + ${result.calls}`,
        computedAt: new Date(result.computedAtMs),
        dueAt: null,
        leaseUntil: null,
        failures: 0,
      })
      .where(this.#of(key))
      .returning({ deviceId: commandVerdicts.deviceId });
    return written.length > 0;
  }

  /** Tried again at `dueAtMs`; `failed` counts towards a longer wait, a wait for a slot does not. */
  async later(key: VerdictKey, dueAtMs: number, failed: boolean): Promise<void> {
    await this.db
      .update(commandVerdicts)
      .set({
        dueAt: new Date(dueAtMs),
        leaseUntil: null,
        ...(failed ? { failures: sql`${commandVerdicts.failures} + 1` } : {}),
      })
      .where(this.#of(key));
  }

  /**
   * An operator watches the device: each window of it running at `nowMs` (upstream clock) is due
   * for a read of its samples so far, at most once every `everyMs` after the last (docs/
   * verification.md, While a window runs). @returns the windows made due sooner.
   */
  async watch(account: Account, deviceId: string, nowMs: number, everyMs: number): Promise<number> {
    const t = commandVerdicts;
    const now = new Date(nowMs);
    const next = sql`greatest(${now}::timestamptz, coalesce(${t.readTo}, ${t.windowStart}) + ${`${everyMs} milliseconds`}::interval)`;
    const rows = await this.db
      .update(t)
      .set({ dueAt: next })
      .where(
        and(
          ofDevice(t, account, deviceId),
          isNull(t.verdict),
          lte(t.windowStart, now),
          gt(t.windowEnd, now),
          gt(t.dueAt, next),
        ),
      )
      .returning({ commandId: t.commandId });
    return rows.length;
  }

  /** The device's windows running at `nowMs` with samples read so far, newest first. */
  async runningOf(account: Account, deviceId: string, nowMs: number): Promise<VerdictRow[]> {
    const t = commandVerdicts;
    const rows = await this.db
      .select()
      .from(t)
      .where(
        and(
          ofDevice(t, account, deviceId),
          isNull(t.verdict),
          lte(t.windowStart, new Date(nowMs)),
          isNotNull(t.readTo),
          isNotNull(t.samples),
        ),
      )
      .orderBy(desc(t.windowStart));
    return rows.map(rowOf);
  }

  /** A command the read model no longer knows, or of a device no longer bound. */
  async drop(key: VerdictKey): Promise<void> {
    await this.db.delete(commandVerdicts).where(this.#of(key));
  }

  /** The device's verdicts, newest window first. */
  async verdictsOf(
    account: Account,
    deviceId: string,
    limit: number,
  ): Promise<CommandVerdictRecord[]> {
    const rows = await this.db
      .select()
      .from(commandVerdicts)
      .where(and(ofDevice(commandVerdicts, account, deviceId), isNotNull(commandVerdicts.verdict)))
      .orderBy(desc(commandVerdicts.windowEnd), desc(commandVerdicts.windowStart))
      .limit(limit);
    return rows.flatMap((row) => {
      const verdict = rowOf(row);
      return verdict.verdict && verdict.computedAtMs !== undefined ? [answerOf(verdict)] : [];
    });
  }

  /**
   * The verdicts of the device commands of `batchCommandIds` (a batch, or a fleet job's batches),
   * as the read model found them, with the number of those commands it knows.
   */
  async verdictsOfBatches(
    account: Account,
    batchCommandIds: readonly string[],
  ): Promise<{ knownCommands: number; records: CommandVerdictRecord[] }> {
    if (batchCommandIds.length === 0) return { knownCommands: 0, records: [] };
    const c = deviceCommands;
    const v = commandVerdicts;
    const rows = await this.db
      .select({ batchCommandId: c.batchCommandId, verdictRow: v })
      .from(c)
      .leftJoin(
        v,
        and(
          eq(v.region, c.region),
          eq(v.clientId, c.clientId),
          eq(v.deviceId, c.deviceId),
          eq(v.commandId, c.commandId),
        ),
      )
      .where(and(ofAccount(c, account), inArray(c.batchCommandId, [...batchCommandIds])))
      .orderBy(asc(c.deviceId));
    const records = rows.flatMap(({ batchCommandId, verdictRow }) => {
      if (!verdictRow || verdictRow.verdict === null) return [];
      const row = rowOf(verdictRow);
      if (!row.verdict || row.computedAtMs === undefined) return [];
      const answer = answerOf(row);
      return [batchCommandId ? { ...answer, batchCommandId } : answer];
    });
    return { knownCommands: rows.length, records };
  }

  /**
   * How many of the batch's device commands the read model knows have no verdict yet: a count, so
   * the verification of each device of a large event does not read every verdict of it
   * ({@link VerdictStore.verdictsOfBatches} answers them once this is 0).
   */
  async pendingOfBatch(account: Account, batchCommandId: string): Promise<number> {
    const c = deviceCommands;
    const v = commandVerdicts;
    const [row] = await this.db
      .select({ pending: sql<number>`count(*)::int` })
      .from(c)
      .leftJoin(
        v,
        and(
          eq(v.region, c.region),
          eq(v.clientId, c.clientId),
          eq(v.deviceId, c.deviceId),
          eq(v.commandId, c.commandId),
        ),
      )
      .where(and(ofAccount(c, account), eq(c.batchCommandId, batchCommandId), isNull(v.verdict)));
    return Number(row?.pending ?? 0);
  }

  /**
   * The account's verdicts of windows that ended at or after `sinceMs`, per device, newest first:
   * what the fleet picture asks attention for.
   */
  async recentVerdictsOf(
    account: Account,
    sinceMs: number,
  ): Promise<Map<string, { verdict: Verdict; commandId: string; endMs: number }[]>> {
    const t = commandVerdicts;
    const rows = await this.db
      .select({
        deviceId: t.deviceId,
        commandId: t.commandId,
        windowEnd: t.windowEnd,
        verdict: sql<unknown>`${t.verdict} -> 'verdict'`,
      })
      .from(t)
      .where(and(ofAccount(t, account), isNotNull(t.verdict), gte(t.windowEnd, new Date(sinceMs))))
      .orderBy(desc(t.windowEnd));
    const byDevice = new Map<string, { verdict: Verdict; commandId: string; endMs: number }[]>();
    for (const row of rows) {
      const verdict = VerdictSchema.safeParse(row.verdict);
      if (!verdict.success) continue;
      const list = byDevice.get(row.deviceId) ?? [];
      list.push({
        verdict: verdict.data,
        commandId: row.commandId,
        endMs: row.windowEnd.getTime(),
      });
      byDevice.set(row.deviceId, list);
    }
    return byDevice;
  }

  /**
   * The last `of` verdicts of each listed device, newest window first (for
   * `notFollowingFlagOf`); a device without a verdict is absent.
   */
  async lastVerdictsOf(
    account: Account,
    deviceIds: readonly string[],
    of: number,
  ): Promise<Map<string, Verdict[]>> {
    const byDevice = new Map<string, Verdict[]>();
    for (let at = 0; at < deviceIds.length; at += ID_CHUNK) {
      const ids = deviceIds.slice(at, at + ID_CHUNK);
      const result = await this.db.execute(sql`
        select device_id, verdict from (
          select device_id, ${commandVerdicts.verdict} -> 'verdict' as verdict,
            row_number() over (partition by device_id order by window_end desc, command_id) as n
          from ${commandVerdicts}
          where region = ${account.region} and client_id = ${account.clientId}
            and verdict is not null
            and device_id in (${sql.join(
              ids.map((id) => sql`${id}`),
              sql`, `,
            )})
        ) t
        where n <= ${of}
        order by device_id, n`);
      const rows = (result as unknown as { rows: { device_id: string; verdict: unknown }[] }).rows;
      for (const row of rows) {
        const verdict = VerdictSchema.safeParse(row.verdict);
        if (!verdict.success) continue;
        const list = byDevice.get(row.device_id) ?? [];
        list.push(verdict.data);
        byDevice.set(row.device_id, list);
      }
    }
    return byDevice;
  }

  /** The settings of each listed device as last read, when read since `sinceMs`. */
  async settingsOfDevices(
    account: Account,
    deviceIds: readonly string[],
    sinceMs: number,
  ): Promise<Map<string, DeviceTelemetrySettings>> {
    const t = deviceTelemetrySettings;
    const found = new Map<string, DeviceTelemetrySettings>();
    for (let at = 0; at < deviceIds.length; at += ID_CHUNK) {
      const rows = await this.db
        .select({ deviceId: t.deviceId, settings: t.settings })
        .from(t)
        .where(
          and(
            ofAccount(t, account),
            inArray(t.deviceId, deviceIds.slice(at, at + ID_CHUNK)),
            gte(t.readAt, new Date(sinceMs)),
          ),
        );
      for (const row of rows) found.set(row.deviceId, row.settings as DeviceTelemetrySettings);
    }
    return found;
  }

  /** The device's settings as last read, when read since `sinceMs`. */
  async settingsOf(key: VerdictKey, sinceMs: number): Promise<DeviceTelemetrySettings | undefined> {
    const [row] = await this.db
      .select()
      .from(deviceTelemetrySettings)
      .where(ofDevice(deviceTelemetrySettings, key, key.deviceId));
    if (!row || row.readAt.getTime() < sinceMs) return undefined;
    return row.settings as DeviceTelemetrySettings;
  }

  async saveSettings(
    key: VerdictKey,
    settings: DeviceTelemetrySettings,
    readAtMs: number,
  ): Promise<void> {
    const t = deviceTelemetrySettings;
    const row = { settings, readAt: new Date(readAtMs) };
    await this.db
      .insert(t)
      .values({ region: key.region, clientId: key.clientId, deviceId: key.deviceId, ...row })
      .onConflictDoUpdate({ target: [t.region, t.clientId, t.deviceId], set: row });
  }

  /** For an upstream that just forgot its devices (the sandbox's reset); never for the vendor. */
  async forgetAll(): Promise<void> {
    await this.db.delete(commandVerdicts);
    await this.db.delete(deviceTelemetrySettings);
  }

  /** For tests and the bench. */
  async countOf(account: Account): Promise<{ pending: number; verified: number }> {
    const [row] = await this.db
      .select({
        pending: sql<number>`count(*) filter (where ${commandVerdicts.verdict} is null)::int`,
        verified: sql<number>`count(*) filter (where ${commandVerdicts.verdict} is not null)::int`,
      })
      .from(commandVerdicts)
      .where(ofAccount(commandVerdicts, account));
    return { pending: Number(row?.pending ?? 0), verified: Number(row?.verified ?? 0) };
  }

  #of(key: VerdictKey) {
    return and(
      ofDevice(commandVerdicts, key, key.deviceId),
      eq(commandVerdicts.commandId, key.commandId),
    );
  }
}

/** Upstream-clock ms a due row of an account without a sign-in waits before it is looked at again. */
const NO_SIGN_IN_WAIT_MS = 5 * 60_000;

function rowOf(row: typeof commandVerdicts.$inferSelect): VerdictRow {
  const verdict =
    row.verdict === null ? undefined : DeviceCommandVerdictSchema.safeParse(row.verdict);
  const samples = row.samples === null ? undefined : SampleColumnsSchema.safeParse(row.samples);
  return {
    region: row.region as Account['region'],
    clientId: row.clientId,
    deviceId: row.deviceId,
    commandId: row.commandId,
    record: StatusRecordSchema.parse(row.record),
    commandStatus: row.commandStatus,
    windowStartMs: row.windowStart.getTime(),
    windowEndMs: row.windowEnd.getTime(),
    dueAtMs: row.dueAt?.getTime(),
    verdict: verdict?.success ? verdict.data : undefined,
    computedAtMs: row.computedAt?.getTime(),
    samplingPeriodMs: row.samplingPeriodMs ?? undefined,
    samples: samples?.success ? samples.data : undefined,
    readToMs: row.readTo?.getTime(),
    telemetryCalls: row.telemetryCalls,
    failures: row.failures,
  };
}

/**
 * A running window's record as the answer gives it: judged from its start to `readToMs` with
 * `soFar` (domain `verdictSoFar`) at `judgedAtMs`.
 */
export function runningAnswerOf(
  row: VerdictRow,
  soFar: DeviceCommandVerdict,
  judgedAtMs: number,
): CommandVerdictRecord {
  // The sample before the window was read for the rules, not for the chart.
  const keep = row.samples?.atMs.map((atMs) => atMs > row.windowStartMs) ?? [];
  const only = <T>(column: readonly T[]) => column.filter((_, index) => keep[index]);
  const samples = row.samples && {
    atMs: only(row.samples.atMs),
    batteryPowerW: only(row.samples.batteryPowerW),
    socPercent: only(row.samples.socPercent),
    gridPowerW: only(row.samples.gridPowerW),
    pvPowerW: only(row.samples.pvPowerW),
  };
  return {
    ...answerOf({
      ...row,
      windowEndMs: row.readToMs ?? row.windowStartMs,
      verdict: soFar,
      computedAtMs: judgedAtMs,
      samples,
    }),
    running: true,
  };
}

function answerOf(row: VerdictRow): CommandVerdictRecord {
  const { record } = row;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    deviceId: row.deviceId,
    commandId: row.commandId,
    ...(record.batchCommandId ? { batchCommandId: record.batchCommandId } : {}),
    powerControl: record.powerControl,
    startTime: record.startTime,
    endTime: record.endTime,
    status: record.status,
    ...(record.cancelReason ? { cancelReason: record.cancelReason } : {}),
    judgedFrom: iso(row.windowStartMs),
    judgedTo: iso(row.windowEndMs),
    judgedAt: iso(row.computedAtMs as number),
    samplingPeriodMs: row.samplingPeriodMs ?? 60_000,
    result: row.verdict as DeviceCommandVerdict,
    ...(row.samples && row.samples.atMs.length > 0 ? { samples: row.samples } : {}),
  };
}
