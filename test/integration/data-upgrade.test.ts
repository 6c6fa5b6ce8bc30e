/**
 * An operator's data made by an earlier release opens under this one and keeps its data
 * (test/fixtures/data-upgrade/README.md): the data directory `npm start` left (PGlite and the
 * session key), and the same operators' day on PostgreSQL. Each is unpacked into a temporary
 * directory (and database), opened the way `scripts/start.ts` opens it (the database, the sandbox
 * on it, then the BFF, each applying its schema's migrations), and read back through the BFF's
 * API: the saved session cookies still sign their operators in, the ledger (which the audit page
 * reads) holds every entry with its operator, kind, devices, window and outcome, the
 * administrator's vendor connection is listed and its sealed secret still gets a token, and the
 * fleet jobs are listed with their batches and devices.
 *
 * Every answer is compared with what the release that made the data answered (`*.recorded.json`,
 * the whole answer: an answer may gain fields, never lose or change one) and with the facts of
 * the operators' day written out below. The BFF's clock is set a minute after the recording, so
 * the saved sessions are within their idle timeout; the identity provider is not needed, since
 * nobody signs in anew.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zstdDecompressSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { DatabaseHandle } from '#infra/database.ts';
import { buildSandboxApp } from '#sandbox/app.ts';
import {
  MIGRATIONS_FOLDER as SANDBOX_MIGRATIONS_FOLDER,
  SANDBOX_SCHEMA,
} from '#sandbox/db/drizzle-persistence.ts';
import { buildServerApp } from '#server/app.ts';
import { BFF_SCHEMA, MIGRATIONS_FOLDER as BFF_MIGRATIONS_FOLDER } from '#server/db/storage.ts';
import { parseServerEnv } from '#server/env.ts';
import { DATABASE_KINDS, createTestDatabase, type TestDatabase } from '../support/databases.ts';

const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/data-upgrade/', import.meta.url));

/** Where the data was made: `PUBLIC_ORIGIN` and the test IdP of `npm run idp:dev` (port offset 600). */
const PUBLIC_ORIGIN = 'http://127.0.0.1:8680';
const IDP = 'http://127.0.0.1:9690';

const PEOPLE = ['olga', 'aussie', 'admin', 'dispatcher', 'viewer'] as const;
type Person = (typeof PEOPLE)[number];

/** The company accounts of the test IdP (`test/support/test-idp.ts`) as the BFF recorded them. */
const ADA = { issuer: IDP, subject: 'admin', name: 'Ada Admin', email: 'ada.admin@example.com' };
const DAN = {
  issuer: IDP,
  subject: 'dispatcher',
  name: 'Dan Dispatcher',
  email: 'dan.dispatcher@example.com',
};
const VERA = {
  issuer: IDP,
  subject: 'viewer',
  name: 'Vera Viewer',
  email: 'vera.viewer@example.com',
};

/** Who each saved cookie signs in, and in which sign-in mode the data was made. */
const SESSIONS: Record<Person, { mode: 'credentials' | 'company'; session: object }> = {
  olga: {
    mode: 'credentials',
    session: { region: 'eu', clientId: 'demo-eu', operatorName: 'Olga Form' },
  },
  aussie: { mode: 'credentials', session: { region: 'au', clientId: 'demo-au' } },
  admin: {
    mode: 'company',
    session: { region: 'eu', operatorName: ADA.name, operator: ADA, role: 'admin' },
  },
  dispatcher: {
    mode: 'company',
    session: { region: 'eu', operatorName: DAN.name, operator: DAN, role: 'dispatcher' },
  },
  viewer: {
    mode: 'company',
    session: { region: 'eu', operatorName: VERA.name, operator: VERA, role: 'viewer' },
  },
};

/** Who acted, as a ledger entry names them. */
const BY_OLGA = { region: 'eu', clientId: 'demo-eu', operatorName: 'Olga Form' };
const BY_AU = { region: 'au', clientId: 'demo-au' };
const BY_ADA = { region: 'eu', clientId: 'demo-eu', operatorName: ADA.name, operator: ADA };
const BY_DAN = { region: 'eu', clientId: 'demo-eu', operatorName: DAN.name, operator: DAN };
const BERLIN = { timeZone: 'Europe/Berlin' };
const effectiveWindow = (day: string, from: string, to: string) => ({
  startTime: `2030-01-${day}T${from}:00:00Z`,
  endTime: `2030-01-${day}T${to}:00:00Z`,
});
const LEIPZIG = (...devices: string[]) => devices.map((n) => `BAT-EU-100-${n}`);

/**
 * The ledger the operators' day wrote, by entry ID (the fixture README tells the day): who did
 * what to which devices, for which window, and how it ended. IDs of commands and batches are the
 * vendor's and differ between the two fixtures; they are compared with the recorded answers.
 */
const LEDGER: Record<string, object> = {
  '1': {
    kind: 'bind',
    state: 'succeeded',
    ...BY_OLGA,
    siteId: 'PLANT-EU-002',
    outcome: { status: 201 },
  },
  '2': {
    kind: 'submit',
    state: 'succeeded',
    ...BY_OLGA,
    deviceId: 'BAT-EU-002-A',
    siteId: 'PLANT-EU-002',
    ...BERLIN,
    ...effectiveWindow('07', '08', '09'),
    request: { powerControl: { targetBatteryPowerW: -3000 }, ...effectiveWindow('07', '08', '09') },
    outcome: { status: 202 },
  },
  '3': {
    kind: 'submit',
    state: 'succeeded',
    ...BY_OLGA,
    deviceId: 'BAT-EU-002-A',
    siteId: 'PLANT-EU-002',
    ...effectiveWindow('07', '10', '11'),
    request: { powerControl: { targetBatteryPowerW: 2000, dischargeCutoffSocPercent: 20 } },
    outcome: { status: 202 },
  },
  '4': {
    kind: 'cancel',
    state: 'succeeded',
    ...BY_OLGA,
    deviceId: 'BAT-EU-002-A',
    undoOf: '3',
    outcome: { status: 200 },
  },
  '5': {
    kind: 'submit',
    state: 'failed',
    ...BY_OLGA,
    deviceId: 'BAT-EU-002-A',
    ...effectiveWindow('07', '12', '13'),
    request: { powerControl: { targetBatteryPowerW: 9000 } },
    outcome: { status: 422, error: { code: 'capability_out_of_range' } },
  },
  '6': {
    kind: 'bind',
    state: 'succeeded',
    ...BY_AU,
    siteId: 'PLANT-AU-001',
    outcome: { status: 201 },
  },
  '7': {
    kind: 'submit',
    state: 'succeeded',
    ...BY_AU,
    deviceId: 'BAT-AU-001-A',
    siteId: 'PLANT-AU-001',
    timeZone: 'Australia/Adelaide',
    ...effectiveWindow('07', '00', '01'),
    request: { powerControl: { targetBatteryPowerW: -1500 } },
    outcome: { status: 202 },
  },
  '8': {
    kind: 'bind',
    state: 'succeeded',
    ...BY_ADA,
    siteId: 'PLANT-EU-001',
    outcome: { status: 201 },
  },
  '9': {
    kind: 'bind',
    state: 'succeeded',
    ...BY_ADA,
    siteId: 'PLANT-EU-100',
    outcome: { status: 201 },
  },
  '10': {
    kind: 'submit',
    state: 'succeeded',
    ...BY_DAN,
    deviceId: 'BAT-EU-001-A',
    siteId: 'PLANT-EU-001',
    ...BERLIN,
    ...effectiveWindow('08', '08', '09'),
    request: { powerControl: { targetBatteryPowerW: -4000 } },
    outcome: { status: 202 },
  },
  '11': {
    kind: 'submit',
    state: 'succeeded',
    ...BY_DAN,
    deviceId: 'BAT-EU-001-B',
    ...effectiveWindow('08', '08', '09'),
    request: { powerControl: { chargeCutoffSocPercent: 90, siteImportLimitW: 8000 } },
    outcome: { status: 202 },
  },
  '12': {
    kind: 'cancel',
    state: 'succeeded',
    ...BY_DAN,
    deviceId: 'BAT-EU-001-B',
    outcome: { status: 200 },
  },
  '13': {
    kind: 'batch',
    state: 'succeeded',
    ...BY_DAN,
    deviceIds: ['BAT-EU-001-A', 'BAT-EU-001-B', 'BAT-EU-001-C'],
    siteId: 'PLANT-EU-001',
    ...effectiveWindow('08', '12', '13'),
    request: { command: { powerControl: { targetBatteryPowerW: 1000 } } },
    outcome: {
      status: 202,
      commands: [
        { deviceId: 'BAT-EU-001-A' },
        { deviceId: 'BAT-EU-001-B' },
        { deviceId: 'BAT-EU-001-C' },
      ],
    },
  },
  '14': {
    kind: 'batch',
    state: 'succeeded',
    ...BY_DAN,
    deviceIds: ['BAT-EU-001-A', 'BAT-EU-001-B'],
    ...effectiveWindow('08', '16', '17'),
    request: { command: { powerControl: { targetBatteryPowerW: -2000 } } },
    outcome: { status: 202 },
  },
  '15': {
    kind: 'batchCancel',
    state: 'succeeded',
    ...BY_DAN,
    siteId: 'PLANT-EU-001',
    outcome: {
      status: 200,
      results: [
        { deviceId: 'BAT-EU-001-A', success: true, status: 'cancelled' },
        { deviceId: 'BAT-EU-001-B', success: true, status: 'cancelled' },
      ],
    },
  },
  // The fleet jobs' batches, sent by the jobs for the dispatcher who made them.
  '16': fleetBatchEntry(LEIPZIG('01', '02'), effectiveWindow('09', '08', '09')),
  '17': fleetBatchEntry(LEIPZIG('03', '04'), effectiveWindow('09', '08', '09')),
  '18': fleetBatchEntry(LEIPZIG('05'), effectiveWindow('09', '08', '09')),
  '19': fleetBatchEntry(LEIPZIG('11', '12'), effectiveWindow('09', '10', '11')),
};

function fleetBatchEntry(deviceIds: string[], entryWindow: object): object {
  return {
    kind: 'batch',
    state: 'succeeded',
    ...BY_DAN,
    deviceIds,
    siteId: 'PLANT-EU-100',
    ...BERLIN,
    ...entryWindow,
    outcome: { status: 202, commands: deviceIds.map((deviceId) => ({ deviceId })) },
  };
}

/** Entry IDs, newest first, as each kind of session sees the ledger. */
const LEDGER_VIEWS = {
  // A credentials-form session sees every entry of its client, company accounts' included.
  credentialsEu: [
    '19',
    '18',
    '17',
    '16',
    '15',
    '14',
    '13',
    '12',
    '11',
    '10',
    '9',
    '8',
    '5',
    '4',
    '3',
    '2',
    '1',
  ],
  // A company account sees the entries of its identity provider's people.
  companyEu: ['19', '18', '17', '16', '15', '14', '13', '12', '11', '10', '9', '8'],
  credentialsAu: ['7', '6'],
};

/** The dispatcher's two fleet jobs: one sent in full, one paused after its first batch. */
const FLEET_JOBS = {
  completed: {
    state: 'completed',
    operatorName: 'Dan Dispatcher',
    command: { powerControl: { targetBatteryPowerW: -2500 }, ...effectiveWindow('09', '08', '09') },
    rollout: { batchSize: 2, batchesPerMinute: 600, abortPercent: 100 },
    batches: [
      { state: 'sent', devices: LEIPZIG('01', '02') },
      { state: 'sent', devices: LEIPZIG('03', '04') },
      { state: 'sent', devices: LEIPZIG('05') },
    ],
  },
  paused: {
    state: 'paused',
    operatorName: 'Dan Dispatcher',
    command: { powerControl: { siteExportLimitW: 12000 }, ...effectiveWindow('09', '10', '11') },
    rollout: { batchSize: 2, batchesPerMinute: 0.1, abortPercent: 50 },
    batches: [
      { state: 'sent', devices: LEIPZIG('11', '12') },
      { state: 'pending', devices: LEIPZIG('13', '14') },
    ],
  },
} as const;

const AnswerSchema = z.record(z.string(), z.unknown());
/** What the release that made the data answered, right before it was stopped. */
const RecordedSchema = z.object({
  recordedAt: z.iso.datetime(),
  cookies: z.record(z.enum(PEOPLE), z.string()),
  sessions: z.record(z.enum(PEOPLE), AnswerSchema),
  ledger: z.object({
    credentialsEu: z.array(AnswerSchema),
    companyEu: z.array(AnswerSchema),
    credentialsAu: z.array(AnswerSchema),
  }),
  connections: z.array(AnswerSchema),
  fleetJobs: z.array(AnswerSchema),
  fleetJob: z.record(z.string(), AnswerSchema),
});
type Recorded = z.infer<typeof RecordedSchema>;

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The value with every ISO 8601 instant replaced by its epoch ms, so an instant written another
 * way (with or without milliseconds, another offset) still compares equal.
 */
function instants(value: unknown): unknown {
  if (typeof value === 'string' && ISO_INSTANT.test(value)) return Date.parse(value);
  if (Array.isArray(value)) return value.map(instants);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, instants(item)]));
  return value;
}

/** Unpacks a `.tar.zst` of the fixture folder into `dir` (zstd in Node, the system's tar). */
async function unpack(archive: string, dir: string): Promise<void> {
  const tar = zstdDecompressSync(await readFile(path.join(FIXTURES_DIR, archive)));
  await new Promise<void>((resolve, reject) => {
    const child = execFile('tar', ['-x', '-C', dir], (error) =>
      error ? reject(error) : resolve(),
    );
    child.stdin?.end(tar);
  });
}

/** Loads a plain `pg_dump` into an empty database; psql's meta-commands are left out. */
async function restoreDump(databaseUrl: string, dumpFile: string): Promise<void> {
  const dump = await readFile(dumpFile, 'utf8');
  const statements = dump
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statements);
  } finally {
    await client.end();
  }
}

async function appliedMigrations(handle: DatabaseHandle, schema: string): Promise<number> {
  // Both drivers answer `{ rows }`; drizzle's shared type does not say so.
  const result = (await handle.db.execute(
    `select count(*)::int as n from "${schema}"."__drizzle_migrations"`,
  )) as unknown as { rows: { n: number }[] };
  return result.rows[0]?.n ?? 0;
}

async function journalLength(migrationsFolder: string): Promise<number> {
  const journal = z
    .object({ entries: z.array(z.unknown()) })
    .parse(
      JSON.parse(await readFile(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')),
    );
  return journal.entries.length;
}

describe.each(DATABASE_KINDS)('data made by the release before, on %s', (kind) => {
  let recorded: Recorded;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let sandbox: FastifyInstance;
  /** The BFF in each sign-in mode the data was made in, on the same database. */
  const bff = {} as Record<'credentials' | 'company', FastifyInstance>;

  beforeAll(async () => {
    recorded = RecordedSchema.parse(
      JSON.parse(await readFile(path.join(FIXTURES_DIR, `${kind}.recorded.json`), 'utf8')),
    );
    // The recorded data directory is unpacked over it: its database is as the old release left it.
    database = await createTestDatabase(kind, { content: 'empty' });
    await unpack(`${kind}-data.tar.zst`, database.dataDir);
    if (database.databaseUrl)
      await restoreDump(database.databaseUrl, path.join(database.dataDir, 'postgres.sql'));

    // As scripts/start.ts: the database, the sandbox on it, then the BFF on both.
    handle = await database.open();
    sandbox = await buildSandboxApp({
      dataDir: database.dataDir,
      databaseUrl: database.databaseUrl,
      database: handle,
      fixture: 'demo',
      adminEnabled: true,
    });
    await sandbox.listen({ host: '127.0.0.1', port: 0 });
    const environment = {
      DATA_DIR: database.dataDir,
      DATABASE_URL: database.databaseUrl,
      PUBLIC_ORIGIN,
      SANDBOX_PORT: String((sandbox.server.address() as AddressInfo).port),
    };
    const startMs = performance.now();
    const recordedAtMs = Date.parse(recorded.recordedAt);
    const now = () => recordedAtMs + 60_000 + Math.round(performance.now() - startMs);
    bff.credentials = await buildServerApp({
      ...parseServerEnv(environment),
      database: handle,
      testing: { now },
    });
    bff.company = await buildServerApp({
      ...parseServerEnv({
        ...environment,
        OIDC_ISSUER: IDP,
        OIDC_CLIENT_ID: 'powerdeck',
        OIDC_CLIENT_SECRET: 'powerdeck-test-idp-secret',
      }),
      database: handle,
      testing: { now },
    });
    await Promise.all([bff.credentials.ready(), bff.company.ready()]);
    // The fleet job queue opens its own tables of the old data too.
    await Promise.all([bff.credentials.fleetJobsStarted(), bff.company.fleetJobsStarted()]);
  });

  afterAll(async () => {
    await bff.company?.close();
    await bff.credentials?.close();
    await sandbox?.close();
    await database?.drop();
  });

  /** A GET through the BFF of `person`'s sign-in mode, with their saved cookie. */
  async function get(person: Person, url: string) {
    const response = await bff[SESSIONS[person].mode].inject({
      method: 'GET',
      url,
      headers: { cookie: `powerdeck_session=${recorded.cookies[person]}` },
    });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  }

  it('applies every migration of the BFF and sandbox schemas to it', async () => {
    expect(await appliedMigrations(handle, BFF_SCHEMA)).toBe(
      await journalLength(BFF_MIGRATIONS_FOLDER),
    );
    expect(await appliedMigrations(handle, SANDBOX_SCHEMA)).toBe(
      await journalLength(SANDBOX_MIGRATIONS_FOLDER),
    );
  });

  it.each(PEOPLE)('signs %s in with the saved session cookie', async (person) => {
    const { status, body } = await get(person, '/api/session');
    expect(status).toBe(200);
    expect(body).toMatchObject(SESSIONS[person].session);
    expect(instants(body)).toMatchObject(instants(recorded.sessions[person]) as object);
  });

  it.each(Object.keys(LEDGER_VIEWS) as (keyof typeof LEDGER_VIEWS)[])(
    'keeps every ledger entry with its operator, kind, devices, window and outcome (%s)',
    async (view) => {
      const person: Person =
        view === 'credentialsEu' ? 'olga' : view === 'credentialsAu' ? 'aussie' : 'viewer';
      const { status, body } = await get(person, '/api/ledger?limit=500');
      expect(status).toBe(200);
      const entries = z.array(AnswerSchema).parse(body.entries);
      const ids = entries.map((entry) => String(entry.id));
      expect(new Set(ids).size).toBe(ids.length);
      // Entries written after the upgrade may come on top; the recorded ones stay, in order.
      const kept = entries.filter((entry) => LEDGER_VIEWS[view].includes(String(entry.id)));
      expect(kept.map((entry) => entry.id)).toEqual(LEDGER_VIEWS[view]);
      for (const [index, entry] of kept.entries()) {
        expect(instants(entry)).toMatchObject(instants(LEDGER[String(entry.id)]) as object);
        expect(instants(entry)).toMatchObject(instants(recorded.ledger[view][index]) as object);
      }
    },
  );

  it('answers the audit filters by person and action from the kept entries', async () => {
    /** IDs of the entries answered for `query` that the data was made with. */
    const keptIds = async (query: string) => {
      const { status, body } = await get('viewer', `/api/ledger?limit=500&${query}`);
      expect(status).toBe(200);
      const ids = z
        .array(AnswerSchema)
        .parse(body.entries)
        .map((entry) => String(entry.id));
      return ids.filter((id) => id in LEDGER);
    };
    expect(await keptIds('operator=dispatcher')).toEqual([
      '19',
      '18',
      '17',
      '16',
      '15',
      '14',
      '13',
      '12',
      '11',
      '10',
    ]);
    expect(await keptIds('operator=admin')).toEqual(['9', '8']);
    expect(await keptIds('kind=batchCancel')).toEqual(['15']);
  });

  it("keeps the administrator's vendor connection, and its sealed secret still gets a token", async () => {
    const listed = await get('admin', '/api/connections');
    expect(listed.status).toBe(200);
    expect(listed.body.connections).toMatchObject([
      { region: 'eu', clientId: 'demo-eu', updatedBy: 'Ada Admin' },
    ]);
    expect(instants(listed.body.connections)).toMatchObject(
      instants(recorded.connections) as object,
    );

    // The check opens the sealed secret and asks the sandbox's token endpoint with it: a secret
    // that no longer opened would answer 404 no_connection, a wrong one 502 connection_refused.
    const check = await bff.company.inject({
      method: 'POST',
      url: '/api/connections/eu/check',
      headers: {
        cookie: `powerdeck_session=${recorded.cookies.admin}`,
        origin: PUBLIC_ORIGIN,
        'x-csrf': '1',
      },
    });
    expect(check.statusCode).toBe(200);
    expect(check.json()).toMatchObject({ ok: true });
  });

  it('keeps the fleet jobs with their batches and devices', async () => {
    const listed = await get('dispatcher', '/api/fleet-jobs');
    expect(listed.status).toBe(200);
    const jobs = z.array(AnswerSchema).parse(listed.body.jobs);
    const recordedIds = recorded.fleetJobs.map((job) => job.jobId);
    expect(jobs.map((job) => job.jobId).filter((id) => recordedIds.includes(id))).toEqual(
      recordedIds,
    );
    const [paused, completed] = recorded.fleetJobs;
    for (const [expected, listedJob] of [
      [FLEET_JOBS.paused, paused],
      [FLEET_JOBS.completed, completed],
    ] as const) {
      const { status, body } = await get(
        'dispatcher',
        `/api/fleet-jobs/${String(listedJob?.jobId)}`,
      );
      expect(status).toBe(200);
      expect(instants(body)).toMatchObject(
        instants({
          state: expected.state,
          operatorName: expected.operatorName,
          command: expected.command,
          rollout: expected.rollout,
          batches: expected.batches.map((batch, index) => ({
            index,
            state: batch.state,
            devices: batch.devices.map((deviceId) => ({ deviceId })),
          })),
        }) as object,
      );
      expect(instants(body)).toMatchObject(
        instants(recorded.fleetJob[String(listedJob?.jobId)]) as object,
      );
    }
  });
});
