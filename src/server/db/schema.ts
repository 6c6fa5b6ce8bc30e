// Over 500 lines on purpose: drizzle-kit generates the migrations from this one file (drizzle.config.ts), so every table of the bff schema is declared here.
import { sql } from 'drizzle-orm';
import { LEDGER_KINDS, LEDGER_STATES } from '../../domain/ledger.ts';
import {
  bigint,
  bigserial,
  boolean,
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

/**
 * The BFF's own Postgres schema; the sandbox keeps its tables in another of the same database
 * (docs/architecture.md, Parts and data flow).
 */
export const bff = pgSchema('bff');

/** What a ledger entry records (domain `LEDGER_KINDS`), as a Postgres enum. */
export const ledgerKind = bff.enum('ledger_kind', LEDGER_KINDS);
/** Where a ledger entry stands (domain `LEDGER_STATES`), as a Postgres enum. */
export const ledgerState = bff.enum('ledger_state', LEDGER_STATES);

/**
 * Server-side sessions (docs/security.md). The cookie's session ID is never stored: `idHash` is
 * its SHA-256, so a leaked table does not yield live cookies. The client secret is AES-256-GCM
 * ciphertext (`secretCiphertext`), bound to `idHash` as associated data. A company sign-in
 * (OpenID Connect) holds no client credentials but the operator's identity and role, and the ID
 * token sealed the same way, kept for the IdP's logout.
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

/**
 * The command ledger (docs/architecture.md, Ledger): one entry per state-changing call made through the BFF. The intent is written before the
 * upstream call (`state = 'pending'`) and completed after it (`succeeded`, `failed` or `unknown`).
 */
export const ledgerEntries = bff.table(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: ledgerKind('kind').notNull(),
    state: ledgerState('state').notNull(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    /** Who acted, in words: the display name at that time (company sign-in) or the typed name. */
    operatorName: text('operator_name'),
    /** Company sign-in: the ID token's `iss` and `sub`, which name the person for good. */
    operatorIssuer: text('operator_issuer'),
    operatorSubject: text('operator_subject'),
    /** Company sign-in: the operator's e-mail at that time. */
    operatorEmail: text('operator_email'),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    deviceId: text('device_id'),
    /** The site of the entry's device(s) when they all belong to one (bind, unbind: the site). */
    siteId: text('site_id'),
    /** IANA time zone of the entry's site, or of all its devices when they share one. */
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
    /**
     * Until when a `pending` entry belongs to the call under way; past it (the BFF died
     * mid-call) the entry counts as `unknown` and is reconciled.
     */
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
    /**
     * The entry this one undoes (docs/architecture.md, Ledger), resolved from the request's
     * `Powerdeck-Undo-Of` among the same operator's entries.
     */
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

/**
 * Vendor connections held by an administrator in company sign-in mode (docs/security.md): per
 * region, the partner's client ID and its secret, sealed like a session's (AES-256-GCM, the
 * region as associated data), never answered. Operators act through the region's connection.
 */
export const vendorConnections = bff.table('vendor_connections', {
  region: text('region').primaryKey(),
  clientId: text('client_id').notNull(),
  secretCiphertext: text('secret_ciphertext').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  updatedByName: text('updated_by_name'),
  updatedBySubject: text('updated_by_subject'),
});

/**
 * Fleet jobs (docs/fleet-dispatch.md): one device command for many devices, sent in batches by
 * the job queue. The sign-in a job acts under is kept as `secretCiphertext` (sealed like a
 * session's, bound to the job ID) while the job can still send or cancel, and cleared when it
 * ends.
 */
export const fleetJobs = bff.table(
  'fleet_jobs',
  {
    id: text('id').primaryKey(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    operatorName: text('operator_name'),
    /**
     * Company sign-in: the person who made the job, `{ issuer, subject, name?, email?, role }` as
     * at that sign-in, so each batch the job sends is recorded in the ledger as theirs.
     */
    operator: jsonb('operator'),
    secretCiphertext: text('secret_ciphertext'),
    command: jsonb('command').notNull(),
    rollout: jsonb('rollout').notNull(),
    state: text('state').notNull(),
    stopReason: text('stop_reason'),
    /** The create request's `Idempotency-Key`, and a fingerprint of its body, when it had one. */
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

/**
 * The batches of a fleet job, in sending order. A batch's ledger entry is keyed by the job and
 * its index, so a batch tried again after a crash is replayed or reconciled, never sent twice.
 */
export const fleetJobBatches = bff.table(
  'fleet_job_batches',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => fleetJobs.id, { onDelete: 'cascade' }),
    batchIndex: integer('batch_index').notNull(),
    state: text('state').notNull(),
    /** Per device: `{ deviceId, commandId?, status?, cancelReason?, failure? }`. */
    devices: jsonb('devices').notNull(),
    batchCommandId: text('batch_command_id'),
    /** This batch's own device command (a dispatch plan's); null: the job's command. */
    command: jsonb('command'),
    attempts: integer('attempts').notNull().default(0),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [primaryKey({ columns: [table.jobId, table.batchIndex] })],
);

/**
 * Account events (docs/architecture.md, Live updates): what changed for an account (region and
 * client ID), in publishing order, for the browsers' streams to replay from after a disconnect.
 * `recipient` narrows an event to one person of the account (their notifications); null: everyone.
 * Kept for `EVENT_RETENTION_MS` (24 h), then pruned.
 */
export const accountEvents = bff.table(
  'account_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    /** A person key (`src/domain/account.ts`), or null for everyone of the account. */
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

/**
 * The notification inbox (docs/architecture.md, Live updates). A notification is for one person
 * of an account (`recipient`, a person key) or for everyone of it (`recipient` null) but the
 * person in `excluded` (who did what it tells of). Reads are kept per person in
 * `notification_reads`, since a notification for everyone is read by each on their own.
 */
export const notifications = bff.table(
  'notifications',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    recipient: text('recipient'),
    excluded: text('excluded'),
    kind: text('kind').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    link: text('link'),
    timeZone: text('time_zone'),
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }),
    windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }),
    /** What happened, as the caller said it (domain `NotificationFacts`), for support. */
    facts: jsonb('facts').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('notifications_account_idx').on(table.region, table.clientId, table.id),
    index('notifications_created_idx').on(table.createdAt),
  ],
);

/** When a person read a notification. */
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

/**
 * The per-device budget of upstream calls (docs/decisions/007-device-call-budget.md, section 1;
 * src/server/budget): one row per call a device spent, at its time on the upstream's clock, kept
 * for one window and then pruned. Rows are written under a per-device advisory lock, so BFF
 * instances sharing the database never spend one slot twice.
 */
export const deviceCallSlots = bff.table(
  'device_call_slots',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    region: text('region').notNull(),
    deviceId: text('device_id').notNull(),
    /** When the call counts from, upstream clock: when it was reserved, then when it was answered. */
    spentAt: timestamp('spent_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** `control` or `read`. */
    kind: text('kind').notNull(),
    /** The queued change whose step took the slot, if any. */
    changeId: text('change_id'),
  },
  (table) => [
    index('device_call_slots_device_idx').on(table.region, table.deviceId, table.spentAt),
  ],
);

/**
 * Devices the upstream refused with 429 (another client of the account spent their budget): no
 * call is made for them before `busyUntil`, upstream clock.
 */
export const deviceCallBusy = bff.table(
  'device_call_busy',
  {
    region: text('region').notNull(),
    deviceId: text('device_id').notNull(),
    busyUntil: timestamp('busy_until', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.region, table.deviceId] })],
);

/**
 * Changes waiting for their devices' budget (docs/decisions/007-device-call-budget.md, section
 * 2): the change as the product described it (`change`, domain `QueuedChange`), the progress and
 * planned time of each of its steps (`steps`), where it stands, and the sign-in it acts under
 * (`secretCiphertext`, sealed by the product and bound to the change ID, cleared when it ends).
 * Times of planning (`nextAt`, `deadlineAt`, the steps') are on the upstream's clock. `seq` orders
 * the changes of a device: a change goes only after the ones queued before it.
 */
export const queuedChanges = bff.table(
  'queued_changes',
  {
    id: text('id').primaryKey(),
    seq: bigserial('seq', { mode: 'number' }).notNull().unique(),
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    operatorName: text('operator_name'),
    /** Company sign-in: `{ issuer, subject, name?, email?, role }` as at that sign-in. */
    operator: jsonb('operator'),
    secretCiphertext: text('secret_ciphertext'),
    kind: text('kind').notNull(),
    change: jsonb('change').notNull(),
    /** Per step: `{ state, plannedAtMs, attempts, startedAtMs?, sentAtMs?, answer? }`. */
    steps: jsonb('steps').notNull(),
    state: text('state').notNull(),
    /** When the runner next looks at the change: its next step's time, or a step's lease. */
    nextAt: timestamp('next_at', { withTimezone: true, mode: 'date' }),
    /** The latest its last step may go (a new window's start minus the lead time), if any. */
    deadlineAt: timestamp('deadline_at', { withTimezone: true, mode: 'date' }),
    leadMs: integer('lead_ms'),
    outcome: jsonb('outcome'),
    /** The request's `Idempotency-Key` and a fingerprint of its change, when it had one. */
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

/** The devices of each queued change, so a device's waiting changes are found by index. */
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
 * Site time zones an administrator set (docs/decisions/006, section 6): per region, client and
 * site, the IANA zone (or fixed offset) every time of the site is shown on, with who set it and
 * when. A site without a row is shown on the zone inferred from the vendor's country and offset,
 * or on that offset.
 */
export const siteTimeZones = bff.table(
  'site_time_zones',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    siteId: text('site_id').notNull(),
    timeZone: text('time_zone').notNull(),
    /** Display name of who set it, as at that time. */
    setByName: text('set_by_name'),
    /** Company sign-in: the ID token's `sub` of who set it. */
    setBySubject: text('set_by_subject'),
    setAt: timestamp('set_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.region, table.clientId, table.siteId] })],
);

/**
 * The read model (docs/decisions/007-device-call-budget.md, section 3; docs/architecture.md, Read
 * model): every command the BFF knows per account (region and client ID) and device, its status
 * record as the domain has it (`record`, domain `StatusRecord`), with the fields the reads select
 * on beside it. Written from the vendor's answers to changes (at once) and from history reads.
 */
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
    /** Who sent it through powerdeck (a person, `src/domain/account.ts`), when known. */
    madeBy: jsonb('made_by'),
    madeByName: text('made_by_name'),
    /** When the BFF first learnt of it, and last changed it, upstream clock. */
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

/**
 * Each device's place in the read model: its version (one more per new command or cancellation;
 * domain `read-model.ts`), when its history was last read and when it is read next (upstream
 * clock, with why), whether it has commands not final yet, which 30-day history ranges were read
 * and which a page asked for (slot starts, epoch ms), and the lease of the instance reading it.
 * `slots_read` holds the ranges read in the order they were last read, longest ago first: the
 * next read takes the open range read longest ago first (domain `slotsToRead`).
 */
export const deviceReadState = bff.table(
  'device_read_state',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id').notNull(),
    siteId: text('site_id'),
    /** False once its site is unbound: it is read no more. */
    bound: boolean('bound').notNull().default(true),
    version: integer('version').notNull().default(0),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }),
    nextReadAt: timestamp('next_read_at', { withTimezone: true, mode: 'date' }),
    nextReadReason: text('next_read_reason'),
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
    hasOpenCommands: boolean('has_open_commands').notNull().default(false),
    slotsRead: jsonb('slots_read').$type<number[]>().notNull().default([]),
    slotsRequested: jsonb('slots_requested').$type<number[]>().notNull().default([]),
    /** Reads that failed in a row (not 429s): the next waits longer. */
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

/**
 * What changed each device's commands, one row per version (a new command, a cancellation), for
 * `changesSince` (the stale view refusal names them). Kept a week.
 */
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
    /** A person key (`src/domain/account.ts`) of who made it through powerdeck. */
    madeByKey: text('made_by_key'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.region, table.clientId, table.deviceId, table.version] }),
    index('device_command_changes_created_idx').on(table.createdAt),
  ],
);

/**
 * The devices of accepted batches whose command is not found yet (the vendor's answer names
 * none; docs/decisions/006, section 5): each is looked for in the device's reads until found, or
 * until a read after its window's end, when the ledger entry says `notFound`.
 */
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
    /** When the vendor answered the batch, its clock. */
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Who sent the batch (a person, `src/domain/account.ts`), and their name then. */
    madeBy: jsonb('made_by'),
    madeByName: text('made_by_name'),
  },
  (table) => [
    primaryKey({ columns: [table.ledgerEntryId, table.deviceId] }),
    index('batch_confirmations_device_idx').on(table.region, table.clientId, table.deviceId),
  ],
);

/**
 * Controls a device turned out not to support (a command of it ended `notSupported`; the vendor
 * publishes no list, decision 006): its capabilities leave them out from then on.
 */
export const unsupportedControls = bff.table(
  'unsupported_controls',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    deviceId: text('device_id').notNull(),
    control: text('control').notNull(),
    /** The command that showed it. */
    commandId: text('command_id').notNull(),
    learntAt: timestamp('learnt_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.region, table.clientId, table.deviceId, table.control] }),
  ],
);

/**
 * The sign-in the read model reads each account's devices under: the client secret, sealed with
 * the session key and bound to the account (as a fleet job keeps its own), written by the
 * account's sessions and cleared once no session was seen for a session's lifetime and nothing is
 * left to read (docs/security.md).
 */
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

/**
 * Each account's site bindings generation: one more at every bind or unbind the read model
 * records. A site list read takes it before asking the vendor and is applied only while it is
 * unchanged, so an answer that predates a binding change never undoes it (docs/architecture.md,
 * Read model). The row lock orders a list's write against a bind's or an unbind's.
 */
export const siteBindingGenerations = bff.table(
  'site_binding_generations',
  {
    region: text('region').notNull(),
    clientId: text('client_id').notNull(),
    generation: integer('generation').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.region, table.clientId] })],
);

/** Notifications the read model made once (a fleet job's failures): the key says what. */
export const readModelNotices = bff.table('read_model_notices', {
  key: text('key').primaryKey(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
});
