/**
 * The sources that write webhook events in their own transactions (docs/architecture.md,
 * Webhooks, Outbox) beside those `webhooks.test.ts` follows through the API: a fleet job's batch
 * and end (`FleetStore`), a stored verdict (`VerdictStore`) and a queued change's end
 * (`QueuedChangeStore` with `queuedChangeWebhook`).
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { columnsOfRows } from '#domain/verdict-answer.ts';
import { WebhookPayloadSchema, type WebhookPayload } from '#domain/webhooks.ts';
import type { Database } from '#infra/database.ts';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { createTwoDeviceJob } from '../../__tests__/support/fleet-job.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '../../budget/device-budget-store.ts';
import { QueuedChangeStore } from '../../budget/queued-change-store.ts';
import { openBffStorage } from '../../db/storage.ts';
import { FleetStore } from '../../fleet/fleet-store.ts';
import { queuedChangeWebhook } from '../../product-api/change-events.ts';
import { SecretBox } from '../../session/secret-box.ts';
import { VerdictStore } from '../../telemetry/verdict-store.ts';
import { WebhookOutbox } from '../webhook-outbox.ts';
import { WebhookStore } from '../webhook-store.ts';

const account = { region: 'eu', clientId: 'demo-eu' } as const;
const box = new SecretBox(randomBytes(32));
let testDb: TestDatabase;
let db: Database;
const nowMs = Date.parse('2026-12-01T09:00:00Z');

async function eventsWritten(): Promise<WebhookPayload[]> {
  const result = await db.execute(sql`select payload from bff.webhook_deliveries order by seq`);
  return (result as unknown as { rows: { payload: unknown }[] }).rows.map((row) =>
    WebhookPayloadSchema.parse(row.payload),
  );
}

beforeAll(async () => {
  testDb = await createTestDatabase('pglite');
  const storage = await openBffStorage({ database: await testDb.open() });
  if (!storage) throw new Error('no storage');
  db = storage.handle.db;
  await new WebhookStore(db).createEndpoint({
    id: 'ep_0123456789abcdefABCD',
    ...account,
    url: 'https://hooks.example.com/powerdeck',
    description: '',
    eventTypes: [
      'fleetJob.progressed',
      'fleetJob.ended',
      'deviceCommand.verdict',
      'change.withdrawn',
    ],
    siteIds: [],
    enabled: true,
    secretCiphertext: 'sealed',
    madeBy: account,
    madeByName: 'Ada',
    createdAt: new Date(nowMs),
  });
});
afterAll(() => testDb.drop());
beforeEach(async () => {
  await db.execute(sql`delete from bff.webhook_deliveries`);
});

describe('webhook events written with what the BFF records', () => {
  it("tells a fleet job's failed batch and its end", async () => {
    const store = new FleetStore(db, new WebhookOutbox(db, () => nowMs));
    const jobId = await createTwoDeviceJob(store, box, nowMs);
    await store.updateBatch({ jobId, index: 0, state: 'failed', attempts: 1 });
    expect(await store.transition(jobId, ['running'], 'failed', nowMs, 'every batch failed')).toBe(
      true,
    );
    expect(await eventsWritten()).toMatchObject([
      {
        type: 'fleetJob.progressed',
        data: {
          jobId,
          batchIndex: 0,
          state: 'batchFailed',
          links: { fleetJob: `/api/fleet-jobs/${jobId}` },
        },
      },
      { type: 'fleetJob.ended', data: { jobId, state: 'failed', reason: 'every batch failed' } },
    ]);
  });

  it('tells a verdict stored, with the links to read it', async () => {
    const store = new VerdictStore(db, new WebhookOutbox(db, () => nowMs));
    const { record, windowStartMs, windowEndMs } = plannedCommand();
    await store.plan(account, [{ record, windowStartMs, windowEndMs, dueAtMs: nowMs }], nowMs);
    expect(await store.saveVerdict(verdictKey, delivered(record))).toBe(true);
    expect(await eventsWritten()).toMatchObject([
      {
        type: 'deviceCommand.verdict',
        data: {
          deviceId: 'BAT-1',
          commandId: 'cmd_1',
          state: 'delivered',
          links: {
            verdicts: '/api/devices/BAT-1/verdicts',
            command: '/api/devices/BAT-1/commands/cmd_1',
          },
        },
      },
    ]);
  });

  it("tells no verdict of a command no longer planned (forgotten in the sandbox's reset)", async () => {
    const store = new VerdictStore(db, new WebhookOutbox(db, () => nowMs));
    const { record, windowStartMs, windowEndMs } = plannedCommand();
    await store.plan(account, [{ record, windowStartMs, windowEndMs, dueAtMs: nowMs }], nowMs);
    // The verification read the vendor meanwhile; its verdict comes after the reset.
    await store.forgetAll();
    expect(await store.saveVerdict(verdictKey, delivered(record))).toBe(false);
    expect(await eventsWritten()).toEqual([]);
  });

  const verdictKey = { ...account, deviceId: 'BAT-1', commandId: 'cmd_1' };

  function plannedCommand() {
    const record = {
      id: 'cmd_1',
      deviceId: 'BAT-1',
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(nowMs - 2 * 3_600_000).toISOString(),
      endTime: new Date(nowMs - 3_600_000).toISOString(),
      status: 'completed' as const,
      receivedAt: new Date(nowMs - 3 * 3_600_000).toISOString(),
    };
    return {
      record,
      windowStartMs: Date.parse(record.startTime),
      windowEndMs: Date.parse(record.endTime),
    };
  }

  function delivered(record: ReturnType<typeof plannedCommand>['record']) {
    return {
      record,
      windowStartMs: Date.parse(record.startTime),
      windowEndMs: Date.parse(record.endTime),
      verdict: {
        verdict: 'delivered' as const,
        commandedEnergyWh: 1000,
        deliveredEnergyWh: 990,
        coverage: 1,
        samples: {
          expected: 60,
          present: 60,
          following: 60,
          limitedBySoc: 0,
          limitedBySiteLimit: 0,
        },
        alarms: [],
      },
      samplingPeriodMs: 60_000,
      samples: columnsOfRows([]),
      readToMs: Date.parse(record.endTime),
      calls: 1,
      computedAtMs: nowMs,
    };
  }

  describe("a queued change's end", () => {
    let changes = 0;
    /** A queued submit of BAT-1, in the store `onEnded` is given to. */
    async function queuedSubmit(store: QueuedChangeStore): Promise<string> {
      const id = `chg_sources_${++changes}`;
      const outcome = await store.create({
        id,
        owner: account,
        change: {
          kind: 'submit',
          steps: [
            {
              call: 'submit',
              deviceId: 'BAT-1',
              command: {
                powerControl: { targetBatteryPowerW: 1000 },
                startTime: new Date(nowMs + 3_600_000).toISOString(),
                endTime: new Date(nowMs + 7_200_000).toISOString(),
              },
              idempotencyKey: `${id}/1`,
            },
          ],
        },
        nowMs,
      });
      expect(outcome.queued).toBe(true);
      return id;
    }
    const budget = () => new DeviceBudgetStore(db, deviceBudgetsOf({ eu: 2, au: 2 }));

    it('is told in the transaction that ends it, with the site read in it', async () => {
      const sites: unknown[] = [];
      const store = new QueuedChangeStore(db, budget(), {
        onEnded: queuedChangeWebhook({
          webhooks: new WebhookOutbox(db, () => nowMs),
          siteOfDevice: async (_, deviceId, tx) => {
            sites.push(tx);
            return deviceId === 'BAT-1' ? 'PLANT-1' : undefined;
          },
        }),
      });
      const id = await queuedSubmit(store);
      expect(await eventsWritten()).toEqual([]);
      expect((await store.withdraw(account, id, nowMs)).withdrawn).toBe(true);
      // Written before the withdrawal answered: no listener runs after its commit.
      expect(await eventsWritten()).toMatchObject([
        {
          type: 'change.withdrawn',
          data: {
            changeId: id,
            deviceId: 'BAT-1',
            siteId: 'PLANT-1',
            state: 'withdrawn',
            links: { change: `/api/changes/${id}` },
          },
        },
      ]);
      expect(sites).toHaveLength(1);
      expect(sites[0]).not.toBe(db);
    });

    it('does not end when its event cannot be written, so no end goes untold', async () => {
      const store = new QueuedChangeStore(db, budget(), {
        onEnded: async () => {
          throw new Error('the outbox refused the write');
        },
      });
      const id = await queuedSubmit(store);
      await expect(store.withdraw(account, id, nowMs)).rejects.toThrow('the outbox refused');
      expect((await store.find(id))?.state).toBe('queued');
      expect(await eventsWritten()).toEqual([]);
    });
  });
});
