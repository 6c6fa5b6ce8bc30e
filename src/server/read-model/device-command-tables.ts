import { and, asc, eq, gt, inArray, lt, or, sql } from 'drizzle-orm';
import { StatusRecordSchema, type CommandStatus, type StatusRecord } from '#domain/command.ts';
import type { DeviceCommandChange } from '#domain/read-model.ts';
import type { OpenCommand } from '#domain/refresh-policy.ts';
import type { Account, Person } from '#domain/account.ts';
import { deviceCommandChanges, deviceCommands, unsupportedControls } from '../db/schema.ts';
import { ofAccount, ofDevice } from '../db/account-rows.ts';
import type { Queryable } from '../events/event-store.ts';
import {
  OPEN_STATUSES,
  ReadModelTables,
  commandKey,
  knownOf,
  type KnownCommand,
} from './read-model-tables.ts';

/** Each device's commands, its versions (the changes after each) and the controls it refused. */
export class DeviceCommandTables extends ReadModelTables {
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
    this.wrote(
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
}
