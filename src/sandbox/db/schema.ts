import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';
import type { Region } from '#domain/token.ts';
import type { FullConfiguration } from '../model/physics.ts';
import type { CancellationReason, CommandStatus, PowerControl } from '../vendor/schemas.ts';

/** Times are epoch ms on the sandbox clock, as the engine keeps them. */
export const sandbox = pgSchema('sandbox');

const epochMs = (name: string) => bigint(name, { mode: 'number' });

export const meta = sandbox.table('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const bindings = sandbox.table(
  'bindings',
  {
    clientId: text('client_id').notNull(),
    siteId: text('site_id').notNull(),
    seq: integer('seq').notNull(),
  },
  (table) => [primaryKey({ columns: [table.clientId, table.siteId] })],
);

/** Only devices whose condition the admin API changed. */
export const deviceConditions = sandbox.table('device_conditions', {
  deviceId: text('device_id').primaryKey(),
  online: boolean('online').notNull(),
  fault: boolean('fault').notNull(),
  sinceMs: epochMs('since_ms').notNull(),
});

/** Each `PUT .../configuration`: the whole configuration from `from_ms` on. */
export const deviceConfigurations = sandbox.table(
  'device_configurations',
  {
    deviceId: text('device_id').notNull(),
    fromMs: epochMs('from_ms').notNull(),
    configuration: jsonb('configuration').$type<FullConfiguration>().notNull(),
  },
  (table) => [primaryKey({ columns: [table.deviceId, table.fromMs] })],
);

export const commands = sandbox.table(
  'commands',
  {
    id: text('id').primaryKey(),
    deviceId: text('device_id').notNull(),
    batchCommandId: text('batch_command_id'),
    powerControl: jsonb('power_control').$type<PowerControl>().notNull(),
    startMs: epochMs('start_ms').notNull(),
    endMs: epochMs('end_ms').notNull(),
    status: text('status').$type<CommandStatus>().notNull(),
    receivedAtMs: epochMs('received_at_ms').notNull(),
    startedAtMs: epochMs('started_at_ms'),
    completedAtMs: epochMs('completed_at_ms'),
    cancelledAtMs: epochMs('cancelled_at_ms'),
    cancelReason: text('cancel_reason').$type<CancellationReason>(),
  },
  (table) => [
    index('commands_device_idx').on(table.deviceId, table.startMs),
    index('commands_batch_idx').on(table.batchCommandId),
    index('commands_status_idx').on(table.status),
  ],
);

export const batches = sandbox.table('batches', {
  id: text('id').primaryKey(),
  clientId: text('client_id').notNull(),
  region: text('region').$type<Region>().notNull(),
  createdAtMs: epochMs('created_at_ms').notNull(),
  deviceIds: jsonb('device_ids').$type<string[]>().notNull().default([]),
});

export const tokens = sandbox.table(
  'tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    clientId: text('client_id').notNull(),
    region: text('region').$type<Region>().notNull(),
    expiresAtMs: epochMs('expires_at_ms').notNull(),
  },
  (table) => [index('tokens_expiry_idx').on(table.expiresAtMs)],
);
