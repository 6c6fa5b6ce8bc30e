import { sql } from 'drizzle-orm';
import { LEDGER_KINDS, LEDGER_STATES } from '#domain/ledger.ts';
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  check,
  type AnyPgColumn,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/** The sandbox keeps its tables in another schema of the same database. */
export const bff = pgSchema('bff');

export const ledgerKind = bff.enum('ledger_kind', LEDGER_KINDS);
export const ledgerState = bff.enum('ledger_state', LEDGER_STATES);

/**
 * Server-side sessions (docs/security.md). `idHash` is the cookie ID's SHA-256, so a leaked table
 * yields no live cookies; secrets are AES-256-GCM sealed, bound to `idHash`.
 */
export const sessions = bff.table(
  'sessions',
  {
    idHash: text('id_hash').primaryKey(),
    region: text('region').notNull(),
    clientId: text('client_id'),
    operatorName: text('operator_name'),
    secretCiphertext: text('secret_ciphertext'),
    operatorIssuer: text('operator_issuer'),
    operatorSubject: text('operator_subject'),
    operatorEmail: text('operator_email'),
    operatorRole: text('operator_role'),
    idTokenCiphertext: text('id_token_ciphertext'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('sessions_last_seen_idx').on(table.lastSeenAt),
    index('sessions_created_idx').on(table.createdAt),
  ],
);

/** docs/architecture.md, Ledger. */
export const ledgerEntries = bff.table(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: ledgerKind('kind').notNull(),
    state: ledgerState('state').notNull(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    operatorName: text('operator_name'),
    /** The ID token's `iss` and `sub`, which name the person for good. */
    operatorIssuer: text('operator_issuer'),
    operatorSubject: text('operator_subject'),
    operatorEmail: text('operator_email'),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    deviceId: text('device_id'),
    siteId: text('site_id'),
    timeZone: text('time_zone'),
    commandId: text('command_id'),
    batchCommandId: text('batch_command_id'),
    deviceIds: jsonb('device_ids').$type<string[]>(),
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }),
    windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }),
    request: jsonb('request'),
    responseStatus: integer('response_status'),
    response: jsonb('response'),
    outcome: jsonb('outcome'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    /** Past it (the BFF died mid-call) a `pending` entry counts as `unknown` and is reconciled. */
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
    undoOf: bigint('undo_of', { mode: 'number' }).references((): AnyPgColumn => ledgerEntries.id, {
      onDelete: 'set null',
    }),
  },
  (table) => [
    uniqueIndex('ledger_idempotency_idx')
      .on(table.region, table.clientId, table.idempotencyKey)
      .where(sql`${table.idempotencyKey} is not null`),
    index('ledger_client_created_idx').on(table.region, table.clientId, table.createdAt),
    index('ledger_device_idx').on(table.deviceId),
    index('ledger_batch_idx').on(table.batchCommandId),
    index('ledger_state_idx').on(table.state),
  ],
);

/** docs/security.md: sealed with the region as associated data, never answered. */
export const vendorConnections = bff.table('vendor_connections', {
  region: text('region').primaryKey(),
  clientId: text('client_id').notNull(),
  secretCiphertext: text('secret_ciphertext').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  updatedByName: text('updated_by_name'),
  updatedBySubject: text('updated_by_subject'),
});

/** docs/fleet-dispatch.md. `secretCiphertext` is bound to the job ID and cleared when it ends. */
export const fleetJobs = bff.table(
  'fleet_jobs',
  {
    id: text('id').primaryKey(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    operatorName: text('operator_name'),
    /** Company sign-in: the maker as at that sign-in, so each batch is recorded as theirs. */
    operator: jsonb('operator'),
    secretCiphertext: text('secret_ciphertext'),
    command: jsonb('command').notNull(),
    rollout: jsonb('rollout').notNull(),
    state: text('state').notNull(),
    stopReason: text('stop_reason'),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    uniqueIndex('fleet_jobs_idempotency_idx')
      .on(table.region, table.clientId, table.idempotencyKey)
      .where(sql`${table.idempotencyKey} is not null`),
    index('fleet_jobs_client_created_idx').on(table.region, table.clientId, table.createdAt),
  ],
);

/** Keyed by job and index in the ledger, so a batch tried again is replayed, never sent twice. */
export const fleetJobBatches = bff.table(
  'fleet_job_batches',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => fleetJobs.id, { onDelete: 'cascade' }),
    batchIndex: integer('batch_index').notNull(),
    state: text('state').notNull(),
    devices: jsonb('devices').notNull(),
    batchCommandId: text('batch_command_id'),
    /** Null: the job's command. */
    command: jsonb('command'),
    attempts: integer('attempts').notNull().default(0),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [primaryKey({ columns: [table.jobId, table.batchIndex] })],
);

/** docs/architecture.md, Live updates; kept `EVENT_RETENTION_MS`. */
export const accountEvents = bff.table(
  'account_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    /** Null for everyone of the account. */
    recipient: text('recipient'),
    type: text('type').notNull(),
    data: jsonb('data').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('account_events_account_idx').on(table.region, table.clientId, table.id),
    index('account_events_created_idx').on(table.createdAt),
  ],
);

/** docs/architecture.md, Notifications; reads are per person, since one for everyone is read by each. */
export const notifications = bff.table(
  'notifications',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    recipient: text('recipient'),
    excluded: text('excluded'),
    /** For everyone of the account with this role or above (an `admin`-only notice); null: anyone. */
    forRole: text('for_role'),
    kind: text('kind').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    link: text('link'),
    timeZone: text('time_zone'),
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }),
    windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }),
    facts: jsonb('facts').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('notifications_account_idx').on(table.region, table.clientId, table.id),
    index('notifications_created_idx').on(table.createdAt),
  ],
);

export const notificationReads = bff.table(
  'notification_reads',
  {
    notificationId: bigint('notification_id', { mode: 'number' })
      .notNull()
      .references(() => notifications.id, { onDelete: 'cascade' }),
    person: text('person').notNull(),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.notificationId, table.person] })],
);

/** Decision 007, section 1; written under a per-device advisory lock. */
export const deviceCallSlots = bff.table(
  'device_call_slots',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    region: text('region').notNull(),
    deviceId: text('device_id').notNull(),
    /** Upstream clock: when reserved, then when answered. */
    spentAt: timestamp('spent_at', { withTimezone: true, mode: 'date' }).notNull(),
    kind: text('kind').notNull(),
    changeId: text('change_id'),
  },
  (table) => [
    index('device_call_slots_device_idx').on(table.region, table.deviceId, table.spentAt),
  ],
);

/** After a 429; upstream clock. */
export const deviceCallBusy = bff.table(
  'device_call_busy',
  {
    region: text('region').notNull(),
    deviceId: text('device_id').notNull(),
    busyUntil: timestamp('busy_until', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.region, table.deviceId] })],
);

/** Decision 007, section 2; times on the upstream's clock; `seq` orders a device's changes. */
export const queuedChanges = bff.table(
  'queued_changes',
  {
    id: text('id').primaryKey(),
    seq: bigserial('seq', { mode: 'number' }).notNull().unique(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    operatorName: text('operator_name'),
    operator: jsonb('operator'),
    secretCiphertext: text('secret_ciphertext'),
    kind: text('kind').notNull(),
    change: jsonb('change').notNull(),
    steps: jsonb('steps').notNull(),
    state: text('state').notNull(),
    nextAt: timestamp('next_at', { withTimezone: true, mode: 'date' }),
    /** A new window's start minus the lead time. */
    deadlineAt: timestamp('deadline_at', { withTimezone: true, mode: 'date' }),
    leadMs: integer('lead_ms'),
    outcome: jsonb('outcome'),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    uniqueIndex('queued_changes_idempotency_idx')
      .on(table.region, table.clientId, table.idempotencyKey)
      .where(sql`${table.idempotencyKey} is not null`),
    index('queued_changes_client_created_idx').on(table.region, table.clientId, table.createdAt),
    index('queued_changes_due_idx')
      .on(table.nextAt)
      .where(sql`${table.state} in ('queued', 'sending')`),
  ],
);

export const queuedChangeDevices = bff.table(
  'queued_change_devices',
  {
    changeId: text('change_id')
      .notNull()
      .references(() => queuedChanges.id, { onDelete: 'cascade' }),
    region: text('region').notNull(),
    deviceId: text('device_id').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.changeId, table.deviceId] }),
    index('queued_change_devices_device_idx').on(table.region, table.deviceId),
  ],
);

/**
 * Every `Idempotency-Key` an account used, with the record made under it (docs/architecture.md,
 * Ledger). One row per holder: a queued change of one call and its ledger entry share their key,
 * and a fleet job's key is apart from a change's. A row goes with its holder (a sandbox reset
 * forgets the queue), so a key is never answered by a record that is gone.
 */
export const idempotencyRecords = bff.table(
  'idempotency_records',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    holder: text('holder', { enum: ['ledger', 'queue', 'fleetJob'] }).notNull(),
    ledgerEntryId: bigint('ledger_entry_id', { mode: 'number' }).references(
      () => ledgerEntries.id,
      { onDelete: 'cascade' },
    ),
    queuedChangeId: text('queued_change_id').references(() => queuedChanges.id, {
      onDelete: 'cascade',
    }),
    fleetJobId: text('fleet_job_id').references(() => fleetJobs.id, { onDelete: 'cascade' }),
    requestHash: text('request_hash'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.region, table.clientId, table.idempotencyKey, table.holder] }),
    uniqueIndex('idempotency_records_ledger_idx').on(table.ledgerEntryId),
    uniqueIndex('idempotency_records_queue_idx').on(table.queuedChangeId),
    uniqueIndex('idempotency_records_fleet_job_idx').on(table.fleetJobId),
    check(
      'idempotency_records_holder_check',
      sql`("holder" = 'ledger') = ("ledger_entry_id" is not null) and ("holder" = 'queue') = ("queued_change_id" is not null) and ("holder" = 'fleetJob') = ("fleet_job_id" is not null)`,
    ),
  ],
);

/** Decision 006, section 6; a site without a row uses the inferred zone, or the vendor's offset. */
export const siteTimeZones = bff.table(
  'site_time_zones',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    siteId: text('site_id').notNull(),
    timeZone: text('time_zone').notNull(),
    setByName: text('set_by_name'),
    setBySubject: text('set_by_subject'),
    setAt: timestamp('set_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.region, table.clientId, table.siteId] })],
);

/** Decision 007, section 3; docs/architecture.md, Read model. */
export const deviceCommands = bff.table(
  'device_commands',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id').notNull(),
    commandId: text('command_id').notNull(),
    status: text('status').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
    windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }).notNull(),
    batchCommandId: text('batch_command_id'),
    record: jsonb('record').notNull(),
    madeBy: jsonb('made_by'),
    madeByName: text('made_by_name'),
    /** Upstream clock. */
    learntAt: timestamp('learnt_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.region, table.clientId, table.deviceId, table.commandId] }),
    index('device_commands_window_idx').on(
      table.region,
      table.clientId,
      table.deviceId,
      table.windowStart,
    ),
    index('device_commands_batch_idx')
      .on(table.region, table.clientId, table.batchCommandId)
      .where(sql`${table.batchCommandId} is not null`),
  ],
);

/** `slots_read` in the order last read, longest ago first (domain `slotsToRead`). */
export const deviceReadState = bff.table(
  'device_read_state',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id').notNull(),
    siteId: text('site_id'),
    bound: boolean('bound').notNull().default(true),
    version: integer('version').notNull().default(0),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }),
    nextReadAt: timestamp('next_read_at', { withTimezone: true, mode: 'date' }),
    nextReadReason: text('next_read_reason'),
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
    hasOpenCommands: boolean('has_open_commands').notNull().default(false),
    slotsRead: jsonb('slots_read').$type<number[]>().notNull().default([]),
    slotsRequested: jsonb('slots_requested').$type<number[]>().notNull().default([]),
    /** Not 429s: the next waits longer. */
    failures: integer('failures').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.region, table.clientId, table.deviceId] }),
    index('device_read_state_due_idx')
      .on(table.nextReadAt)
      .where(sql`${table.bound} and ${table.nextReadAt} is not null`),
    index('device_read_state_site_idx').on(table.region, table.clientId, table.siteId),
  ],
);

/** For `changesSince` (the stale view refusal names them). Kept a week. */
export const deviceCommandChanges = bff.table(
  'device_command_changes',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id').notNull(),
    version: integer('version').notNull(),
    kind: text('kind').notNull(),
    commandId: text('command_id').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
    windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }).notNull(),
    cancelReason: text('cancel_reason'),
    batchCommandId: text('batch_command_id'),
    madeByName: text('made_by_name'),
    madeByKey: text('made_by_key'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.region, table.clientId, table.deviceId, table.version] }),
    index('device_command_changes_created_idx').on(table.createdAt),
  ],
);

/** Decision 006, section 5: looked for until found, or `notFound` after a read past its window. */
export const batchConfirmations = bff.table(
  'batch_confirmations',
  {
    ledgerEntryId: bigint('ledger_entry_id', { mode: 'number' })
      .notNull()
      .references(() => ledgerEntries.id, { onDelete: 'cascade' }),
    deviceId: text('device_id').notNull(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    batchCommandId: text('batch_command_id'),
    powerControl: jsonb('power_control').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
    windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }).notNull(),
    /** The vendor's clock. */
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }).notNull(),
    madeBy: jsonb('made_by'),
    madeByName: text('made_by_name'),
  },
  (table) => [
    primaryKey({ columns: [table.ledgerEntryId, table.deviceId] }),
    index('batch_confirmations_device_idx').on(table.region, table.clientId, table.deviceId),
  ],
);

/** The vendor publishes no list (decision 006). */
export const unsupportedControls = bff.table(
  'unsupported_controls',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id').notNull(),
    control: text('control').notNull(),
    commandId: text('command_id').notNull(),
    learntAt: timestamp('learnt_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.region, table.clientId, table.deviceId, table.control] }),
  ],
);

/** Cleared once no session was seen for a session's lifetime and nothing is left (docs/security.md). */
export const readModelAccounts = bff.table(
  'read_model_accounts',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    secretCiphertext: text('secret_ciphertext'),
    seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.region, table.clientId] })],
);

/** The row lock orders a site list's write against a bind; see docs/architecture.md, Read model. */
export const siteBindingGenerations = bff.table(
  'site_binding_generations',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    generation: integer('generation').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.region, table.clientId] })],
);

export const readModelNotices = bff.table('read_model_notices', {
  key: text('key').primaryKey(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/**
 * A verdict per device per command (docs/verification.md), beside the ledger: a row is written
 * pending (`due_at` set, on the upstream's clock) when the read model learns a command, and gets
 * its verdict (a domain `DeviceCommandVerdict`) once the window's telemetry is read. `samples`
 * holds the window's samples as columns for a chart (domain `SampleColumns`); while a long window
 * is read a page at a time, it holds the pages read so far, up to `read_to`.
 */
export const commandVerdicts = bff.table(
  'command_verdicts',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id').notNull(),
    commandId: text('command_id').notNull(),
    /** The command's status the row was last planned or computed from. */
    commandStatus: text('command_status').notNull(),
    /** The command as the read model knew it then (a `StatusRecord`). */
    record: jsonb('record').notNull(),
    /** The effective window (docs/verification.md): from its start or late start to its end. */
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
    windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }).notNull(),
    /** When it is verified, upstream clock; null once it has its verdict. */
    dueAt: timestamp('due_at', { withTimezone: true, mode: 'date' }),
    /** A run under way holds it until then (upstream clock); another instance takes it after. */
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
    verdict: jsonb('verdict'),
    computedAt: timestamp('computed_at', { withTimezone: true, mode: 'date' }),
    samplingPeriodMs: integer('sampling_period_ms'),
    samples: jsonb('samples'),
    readTo: timestamp('read_to', { withTimezone: true, mode: 'date' }),
    telemetryCalls: integer('telemetry_calls').notNull().default(0),
    /** Failed runs in a row, not waits for a slot: the next waits longer. */
    failures: integer('failures').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.region, table.clientId, table.deviceId, table.commandId] }),
    index('command_verdicts_device_idx').on(
      table.region,
      table.clientId,
      table.deviceId,
      table.windowEnd,
    ),
    index('command_verdicts_due_idx')
      .on(table.dueAt)
      .where(sql`${table.dueAt} is not null`),
  ],
);

/**
 * What the verification last read of a device's configuration (its cut-offs, site limits and
 * sampling period, `DeviceTelemetrySettings` of the adapter): read only when a verdict turns on
 * them, kept a day so a device's next verdicts spend no call on it.
 */
export const deviceTelemetrySettings = bff.table(
  'device_telemetry_settings',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id').notNull(),
    settings: jsonb('settings').notNull(),
    /** Upstream clock. */
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.region, table.clientId, table.deviceId] })],
);

/**
 * The latest sample read of each bound device (docs/verification.md, Fleet picture), and when it
 * is read again (upstream clock; a claim holds it until then as its lease).
 */
export const deviceLatestSamples = bff.table(
  'device_latest_samples',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id').notNull(),
    /** The instant the sample describes; null until the device answered once. */
    sampledAt: timestamp('sampled_at', { withTimezone: true, mode: 'date' }),
    batteryPowerW: doublePrecision('battery_power_w'),
    socPercent: doublePrecision('soc_percent'),
    gridPowerW: doublePrecision('grid_power_w'),
    pvPowerW: doublePrecision('pv_power_w'),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }),
    nextReadAt: timestamp('next_read_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.region, table.clientId, table.deviceId] }),
    index('device_latest_samples_due_idx').on(table.nextReadAt),
  ],
);

/**
 * API tokens (docs/security.md, API tokens): the secret only as its SHA-256 hash; in
 * credentials-form sign-in, the maker's vendor secret sealed to the token's ID, which the token
 * acts under (company sign-in: the region's vendor connection).
 */
export const apiTokens = bff.table(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    name: text('name').notNull(),
    role: text('role').notNull(),
    /** Empty: every site of the account. */
    siteIds: jsonb('site_ids').$type<string[]>().notNull(),
    secretHash: text('secret_hash').notNull(),
    vendorSecretCiphertext: text('vendor_secret_ciphertext'),
    /** The maker as at their sign-in (an `AccountActor`), and their name in words. */
    madeBy: jsonb('made_by').notNull(),
    madeByName: text('made_by_name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    revokedByName: text('revoked_by_name'),
  },
  (table) => [index('api_tokens_account_idx').on(table.region, table.clientId)],
);

/**
 * Outgoing webhooks' endpoints (docs/security.md, Webhooks): the signing secret, and during a
 * rotation the previous one with when it stops signing, sealed with the session key to the
 * endpoint's ID (the BFF must sign with them, so they cannot be hashed as token secrets are).
 */
export const webhookEndpoints = bff.table(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    url: text('url').notNull(),
    description: text('description').notNull(),
    eventTypes: jsonb('event_types').$type<string[]>().notNull(),
    /** Empty: every site of the account. */
    siteIds: jsonb('site_ids').$type<string[]>().notNull(),
    enabled: boolean('enabled').notNull(),
    disabledReason: text('disabled_reason'),
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    secretCiphertext: text('secret_ciphertext').notNull(),
    previousSecretCiphertext: text('previous_secret_ciphertext'),
    previousSecretUntil: timestamp('previous_secret_until', { withTimezone: true, mode: 'date' }),
    /** The maker as at their sign-in (an `AccountActor`), and their name in words. */
    madeBy: jsonb('made_by').notNull(),
    madeByName: text('made_by_name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('webhook_endpoints_account_idx').on(table.region, table.clientId)],
);

/**
 * One event to one endpoint (docs/architecture.md, Webhooks): written in the transaction where
 * the BFF learned the event, so none is lost; `event_id` is the `webhook-id` of every delivery
 * of the event; due on `next_attempt_at`, claimed with `lease_until`.
 */
export const webhookDeliveries = bff.table(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    /** Newest first in the log. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    payload: jsonb('payload').notNull(),
    status: text('status').notNull(),
    /** Attempts made in the current round (a redelivery starts a new one). */
    attemptsMade: integer('attempts_made').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    redeliveredAt: timestamp('redelivered_at', { withTimezone: true, mode: 'date' }),
    redeliveredBy: text('redelivered_by'),
  },
  (table) => [
    index('webhook_deliveries_due_idx').on(table.nextAttemptAt),
    index('webhook_deliveries_endpoint_idx').on(table.endpointId, table.seq),
    index('webhook_deliveries_created_idx').on(table.createdAt),
  ],
);

/** Each attempt of a delivery: the endpoint's answer, or why there was none. */
export const webhookAttempts = bff.table(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    responseExcerpt: text('response_excerpt'),
  },
  (table) => [index('webhook_attempts_delivery_idx').on(table.deliveryId, table.id)],
);
