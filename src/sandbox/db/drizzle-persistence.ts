import { fileURLToPath } from 'node:url';
import {
  and,
  asc,
  eq,
  getTableColumns,
  gt,
  inArray,
  isNotNull,
  lt,
  lte,
  sql,
  type SQL,
} from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database, DatabaseHandle } from '#infra/database.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import type {
  FixtureSeed,
  HistoryRange,
  PersistedState,
  SandboxPersistence,
  StateChange,
} from '../state/persistence.ts';
import { executedSince } from '../state/persistence.ts';
import {
  batches,
  bindings,
  commands,
  deviceConditions,
  deviceConfigurations,
  meta,
  tokens,
} from './schema.ts';

export const SANDBOX_SCHEMA = 'sandbox';
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

/** 12 columns x 1,000 stays far below PostgreSQL's 65,535 parameters. */
const CHUNK_ROWS = 1_000;
const BULK_ROWS = 10_000;

type CommandRow = typeof commands.$inferInsert;
type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

const excluded = (column: PgColumn): SQL => sql.raw(`excluded."${column.name}"`);

function toRow(command: CommandEntity): CommandRow {
  return {
    id: command.id,
    deviceId: command.deviceId,
    batchCommandId: command.batchCommandId ?? null,
    powerControl: command.powerControl,
    startMs: command.startMs,
    endMs: command.endMs,
    status: command.status,
    receivedAtMs: command.receivedAtMs,
    startedAtMs: command.startedAtMs ?? null,
    completedAtMs: command.completedAtMs ?? null,
    cancelledAtMs: command.cancelledAtMs ?? null,
    cancelReason: command.cancelReason ?? null,
  };
}

function toEntity(row: typeof commands.$inferSelect): CommandEntity {
  const entity: CommandEntity = {
    id: row.id,
    deviceId: row.deviceId,
    powerControl: row.powerControl,
    startMs: row.startMs,
    endMs: row.endMs,
    status: row.status,
    receivedAtMs: row.receivedAtMs,
  };
  if (row.batchCommandId !== null) entity.batchCommandId = row.batchCommandId;
  if (row.startedAtMs !== null) entity.startedAtMs = row.startedAtMs;
  if (row.completedAtMs !== null) entity.completedAtMs = row.completedAtMs;
  if (row.cancelledAtMs !== null) entity.cancelledAtMs = row.cancelledAtMs;
  if (row.cancelReason !== null) entity.cancelReason = row.cancelReason;
  return entity;
}

function chunks<T>(items: T[]): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK_ROWS) result.push(items.slice(i, i + CHUNK_ROWS));
  return result;
}

async function setMeta(tx: Transaction, key: string, value: string): Promise<void> {
  await tx
    .insert(meta)
    .values({ key, value })
    .onConflictDoUpdate({ target: meta.key, set: { value } });
}

async function upsertCommands(tx: Transaction, entities: CommandEntity[]): Promise<void> {
  for (const chunk of chunks(entities.map(toRow)))
    await tx
      .insert(commands)
      .values(chunk)
      .onConflictDoUpdate({
        target: commands.id,
        set: {
          status: excluded(commands.status),
          startedAtMs: excluded(commands.startedAtMs),
          completedAtMs: excluded(commands.completedAtMs),
          cancelledAtMs: excluded(commands.cancelledAtMs),
          cancelReason: excluded(commands.cancelReason),
        },
      });
}

const COMMAND_COLUMNS = getTableColumns(commands);

/** {@link toRow} keyed by column name (`device_id`), as `jsonb_to_recordset` reads a record. */
function toColumnRecord(command: CommandEntity): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(toRow(command)).map(([field, value]) => [
      COMMAND_COLUMNS[field as keyof typeof COMMAND_COLUMNS].name,
      value,
    ]),
  );
}

// One JSON parameter per chunk via `jsonb_to_recordset`: PGlite binds 12 parameters per row slowly.
async function bulkInsertCommands(tx: Transaction, entities: CommandEntity[]): Promise<void> {
  for (let i = 0; i < entities.length; i += BULK_ROWS) {
    const rows = entities.slice(i, i + BULK_ROWS).map(toColumnRecord);
    await tx.execute(sql`
      insert into ${commands}
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as t(
        id text, device_id text, batch_command_id text, power_control jsonb, start_ms bigint,
        end_ms bigint, status text, received_at_ms bigint, started_at_ms bigint,
        completed_at_ms bigint, cancelled_at_ms bigint, cancel_reason text)`);
  }
}

/** Each {@link StateChange} is one transaction: a batch is never half-written, even by kill -9. */
export class DrizzlePersistence implements SandboxPersistence {
  private constructor(private readonly db: Database) {}

  static async open(handle: DatabaseHandle): Promise<DrizzlePersistence> {
    await handle.migrate({ migrationsFolder: MIGRATIONS_FOLDER, schema: SANDBOX_SCHEMA });
    return new DrizzlePersistence(handle.db);
  }

  async load(): Promise<PersistedState> {
    const [
      metaRows,
      bindingRows,
      conditionRows,
      configurationRows,
      commandRows,
      batchRows,
      tokenRows,
    ] = await Promise.all([
      this.db.select().from(meta),
      this.db.select().from(bindings),
      this.db.select().from(deviceConditions),
      this.db.select().from(deviceConfigurations),
      this.db
        .select()
        .from(commands)
        .where(inArray(commands.status, ['received', 'executing'])),
      this.db.select().from(batches),
      this.db.select().from(tokens),
    ]);
    const values = new Map(metaRows.map((row) => [row.key, row.value]));
    return {
      seededFixture: values.get('seededFixture'),
      clockOffsetMs: Number(values.get('clockOffsetMs') ?? 0),
      modelOriginMs: values.has('modelOriginMs') ? Number(values.get('modelOriginMs')) : undefined,
      bindings: bindingRows,
      deviceConditions: conditionRows,
      deviceConfigurations: configurationRows,
      activeCommands: commandRows.map(toEntity),
      batches: batchRows,
      tokens: tokenRows,
    };
  }

  async write(change: StateChange): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (change.clockOffsetMs !== undefined)
        await setMeta(tx, 'clockOffsetMs', String(change.clockOffsetMs));
      if (change.modelOriginMs !== undefined)
        await setMeta(tx, 'modelOriginMs', String(change.modelOriginMs));
      if (change.deviceConfigurations.length > 0)
        await tx
          .insert(deviceConfigurations)
          .values(change.deviceConfigurations)
          .onConflictDoUpdate({
            target: [deviceConfigurations.deviceId, deviceConfigurations.fromMs],
            set: { configuration: excluded(deviceConfigurations.configuration) },
          });
      if (change.batch) await tx.insert(batches).values(change.batch);
      if (change.commands.size > 0) await upsertCommands(tx, [...change.commands.values()]);
      for (const binding of change.bindings)
        await tx
          .insert(bindings)
          .values(binding)
          .onConflictDoUpdate({
            target: [bindings.clientId, bindings.siteId],
            set: { seq: binding.seq },
          });
      for (const { clientId, siteId } of change.unbindings)
        await tx
          .delete(bindings)
          .where(and(eq(bindings.clientId, clientId), eq(bindings.siteId, siteId)));
      for (const condition of change.deviceConditions)
        await tx
          .insert(deviceConditions)
          .values(condition)
          .onConflictDoUpdate({
            target: deviceConditions.deviceId,
            set: { online: condition.online, fault: condition.fault, sinceMs: condition.sinceMs },
          });
      if (change.tokensExpiredBeforeMs !== undefined)
        await tx.delete(tokens).where(lte(tokens.expiresAtMs, change.tokensExpiredBeforeMs));
      if (change.tokens.length > 0) await tx.insert(tokens).values(change.tokens);
    });
  }

  async reset(seed: FixtureSeed): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.delete(commands);
      await tx.delete(batches);
      await tx.delete(bindings);
      await tx.delete(deviceConditions);
      await tx.delete(deviceConfigurations);
      await bulkInsertCommands(tx, seed.commands);
      if (seed.bindings.length > 0) await tx.insert(bindings).values(seed.bindings);
      await setMeta(tx, 'clockOffsetMs', '0');
      await setMeta(tx, 'seededFixture', seed.fixture);
      if (seed.modelOriginMs !== undefined)
        await setMeta(tx, 'modelOriginMs', String(seed.modelOriginMs));
    });
  }

  async findCommand(id: string): Promise<CommandEntity | undefined> {
    const [row] = await this.db.select().from(commands).where(eq(commands.id, id));
    return row && toEntity(row);
  }

  async history(range: HistoryRange): Promise<CommandEntity[]> {
    const rows = await this.db
      .select()
      .from(commands)
      .where(
        and(
          eq(commands.deviceId, range.deviceId),
          lt(commands.startMs, range.endMs),
          gt(commands.endMs, range.startMs),
          range.status === undefined ? undefined : eq(commands.status, range.status),
        ),
      )
      .orderBy(asc(commands.startMs), asc(commands.receivedAtMs), asc(commands.id));
    return rows.map(toEntity);
  }

  async executedSince(sinceMs: number): Promise<CommandEntity[]> {
    const rows = await this.db
      .select()
      .from(commands)
      .where(
        and(
          isNotNull(commands.startedAtMs),
          sql`coalesce(${commands.completedAtMs}, ${commands.cancelledAtMs}, 9007199254740991) > ${sinceMs}`,
        ),
      );
    return rows.map(toEntity).filter((command) => executedSince(command, sinceMs));
  }

  async batchCommands(batchCommandId: string): Promise<CommandEntity[]> {
    const rows = await this.db
      .select()
      .from(commands)
      .where(eq(commands.batchCommandId, batchCommandId));
    return rows.map(toEntity);
  }
}
