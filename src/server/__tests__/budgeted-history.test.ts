/**
 * The history reader that spends the device budget (docs/decisions/007-device-call-budget.md,
 * section 1), as the ledger uses it to settle a submission whose outcome is unknown: one slot per
 * page, no page read without a slot (429 with the device's wait), and a vendor 429 marking the
 * device busy, never retried.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import type { StatusRecord } from '#domain/command.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { openBffStorage } from '../db/storage.ts';
import { ProblemError } from '../http/problem.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import { budgetedHistory } from '../ledger/budgeted-history.ts';
import { DeviceBudgetStore, deviceBudgetsOf } from '../budget/device-budget-store.ts';

const T = Date.parse('2026-11-25T14:00:00Z');
const caller: UpstreamCaller = { id: 'c', region: 'eu', clientId: 'x', clientSecret: 'y' };
const query = { startTime: '2026-11-25T00:00:00Z', endTime: '2026-11-26T00:00:00Z' };
const record = (id: string) => ({ id }) as unknown as StatusRecord;
const device = () => `BAT-${randomUUID().slice(0, 8)}`;

describe('a history read that spends the device budget', () => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  let budget: DeviceBudgetStore;
  let nowMs = T;

  beforeAll(async () => {
    testDb = await createTestDatabase('pglite');
    handle = await testDb.open();
    await openBffStorage({ database: handle });
    budget = new DeviceBudgetStore(handle.db, deviceBudgetsOf({ eu: 2, au: 2 }));
  });
  afterAll(() => testDb.drop());

  it('takes one slot per page, and reads no page the budget has no slot for', async () => {
    const id = device();
    const pages: number[] = [];
    const read = budgetedHistory({
      budget,
      upstreamNow: () => nowMs,
      upstream: {
        historyPage: async (_caller, _deviceId, _query, page) => {
          pages.push(page);
          return { commands: [record(`CMD-${page}`)], more: page < 2 };
        },
      },
    });
    expect((await read(caller, id, query)).map((r) => r.id)).toEqual(['CMD-1', 'CMD-2']);
    expect(pages).toEqual([1, 2]);

    nowMs = T + 10_000;
    const refused = await read(caller, id, query).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).problem).toMatchObject({
      status: 429,
      code: 'device_rate_limited',
      detail: expect.stringContaining('the vendor allows two per device per minute'),
    });
    // The two slots were taken at T: the next frees a minute later, 50 s from now.
    expect((refused as ProblemError).headers['retry-after']).toBe('50');
    expect(pages).toEqual([1, 2]);
  });

  it("obeys the vendor's 429: the device is busy until its Retry-After, and the page is not read again", async () => {
    const id = device();
    nowMs = T;
    let calls = 0;
    const read = budgetedHistory({
      budget,
      upstreamNow: () => nowMs,
      upstream: {
        historyPage: async () => {
          calls += 1;
          throw new ProblemError(429, 'device_rate_limited', 'busy', {
            headers: { 'retry-after': '30' },
          });
        },
      },
    });
    await expect(read(caller, id, query)).rejects.toBeInstanceOf(ProblemError);
    expect(calls).toBe(1);
    // One slot of two was spent, yet the device is busy for the 30 s the vendor asked.
    expect(
      await budget.reserve({ region: 'eu', deviceIds: [id], kind: 'control', nowMs: T + 1_000 }),
    ).toMatchObject({ granted: false, nextFreeAtMs: T + 30_000 });
  });
});

describe("a refusal for want of a slot names the region's configured budget", () => {
  it('says three per device per minute where three are configured', async () => {
    const testDb = await createTestDatabase('pglite');
    try {
      const handle = await testDb.open();
      await openBffStorage({ database: handle });
      const budget = new DeviceBudgetStore(handle.db, deviceBudgetsOf({ eu: 3, au: 2 }));
      const read = budgetedHistory({
        budget,
        upstreamNow: () => T,
        upstream: { historyPage: async () => ({ commands: [], more: true }) },
      });
      const refused = await read(caller, device(), query).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ProblemError);
      expect((refused as ProblemError).problem.detail).toContain(
        'the vendor allows three per device per minute',
      );
    } finally {
      await testDb.drop();
    }
  });
});
