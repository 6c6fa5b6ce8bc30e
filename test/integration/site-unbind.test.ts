/**
 * A site unbound while a batch's devices there still wait (docs/architecture.md, Ledger:
 * batches), BFF + sandbox over real HTTP on the sandbox's clock: the batch ends those devices as
 * no longer followed, so it does not stay in progress for good.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BatchSubmissionResponseSchema } from '#domain/batch.ts';
import { LedgerPageSchema } from '#domain/ledger.ts';
import { NotificationPageSchema } from '#domain/notifications.ts';
import { OverviewSchema } from '#domain/overview.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ followSandboxClock: true, bff: { testing: { readModelTickMs: 0 } } });
});
afterAll(() => stack?.close());

describe('a batch whose devices were in a site since unbound', () => {
  it('ends those devices as no longer followed; the devices still bound follow their commands', async () => {
    await stack.admin.reset();
    const reads = stack.bff.readModel.reads;
    const browser = stack.browser();
    expect((await browser.signIn({ ...DEMO_EU, operatorName: 'Ada Admin' })).status).toBe(200);
    // Another operator of the same client, who did not unbind the site.
    const other = stack.browser();
    expect((await other.signIn({ ...DEMO_EU, operatorName: 'Otto Other' })).status).toBe(200);
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-002' })).status).toBe(201);
    await reads.runDue();
    await stack.admin.advanceClock(MINUTE_MS);

    const nowMs = await stack.admin.nowMs();
    const startMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + 30 * MINUTE_MS;
    const sent = await browser.request({
      method: 'POST',
      path: '/api/batches',
      json: {
        devices: ['BAT-EU-001-A', 'BAT-EU-002-A'],
        command: {
          powerControl: { targetBatteryPowerW: 1500 },
          startTime: new Date(startMs).toISOString(),
          endTime: new Date(startMs + 20 * MINUTE_MS).toISOString(),
        },
      },
      headers: { 'idempotency-key': `"${randomUUID()}"` },
    });
    expect(sent.status).toBe(202);
    const { batchCommandId } = BatchSubmissionResponseSchema.parse(sent.json());
    if (!batchCommandId) throw new Error('the batch was answered at once: it has its ID');
    const outcome = async () => {
      const page = LedgerPageSchema.parse(
        (await browser.get(`/api/ledger?batchCommandId=${batchCommandId}&kind=batch`)).json(),
      );
      return page.entries[0]?.outcome;
    };
    // Both devices' commands are found in their histories (a read a minute each).
    for (let i = 0; i < 4 && (await outcome())?.confirmation !== 'confirmed'; i += 1) {
      await stack.admin.advanceClock(30_000);
      await reads.runDue();
    }
    expect((await outcome())?.confirmation).toBe('confirmed');
    expect((await outcome())?.unbound ?? []).toEqual([]);

    expect((await browser.delete('/api/sites/PLANT-EU-002')).status).toBe(204);

    expect((await outcome())?.unbound).toEqual([
      { deviceId: 'BAT-EU-002-A', lastStatus: 'received' },
    ]);

    // Everyone else of the account is told who unbound which site, and what it left running.
    const { notifications } = NotificationPageSchema.parse(
      (await other.get('/api/notifications')).json(),
    );
    const told = notifications.filter((n) => n.kind === 'siteUnbound');
    expect(told.map((n) => [n.title, n.body])).toEqual([
      [
        'Site PLANT-EU-002 unbound',
        'Ada Admin unbound it, leaving 1 waiting or executing command on the vendor: it still runs there, and powerdeck can no longer follow or cancel it. Its devices and their commands are out of reach until the site is bound again on the Sites page.',
      ],
    ]);

    // The overview agrees with the batch page: under way while the bound device's command
    // waits, no longer once it is cancelled too (the other device is over: site unbound).
    const underWay = async () =>
      OverviewSchema.parse((await browser.get('/api/overview')).json()).batches.map(
        (b) => b.batchCommandId,
      );
    expect(await underWay()).toEqual([batchCommandId]);
    const bound = (await outcome())?.commands?.find((c) => c.deviceId === 'BAT-EU-001-A');
    if (!bound) throw new Error('the bound device’s command was found');
    await stack.admin.advanceClock(MINUTE_MS);
    const cancelled = await browser.put(`/api/devices/BAT-EU-001-A/commands/${bound.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(await underWay()).toEqual([]);
  }, 60_000);
});

describe('a batch whose device command ended before its site was unbound', () => {
  it('ends that device with its last known final status, and its status is answered no more', async () => {
    await stack.admin.reset();
    const reads = stack.bff.readModel.reads;
    const browser = stack.browser();
    expect((await browser.signIn({ ...DEMO_EU, operatorName: 'Ada Admin' })).status).toBe(200);
    for (const siteId of ['PLANT-EU-001', 'PLANT-EU-002'])
      expect([200, 201]).toContain((await browser.post('/api/sites', { siteId })).status);
    await reads.runDue();
    await stack.admin.advanceClock(MINUTE_MS);

    const nowMs = await stack.admin.nowMs();
    const startMs = Math.ceil(nowMs / MINUTE_MS) * MINUTE_MS + 30 * MINUTE_MS;
    const sent = await browser.request({
      method: 'POST',
      path: '/api/batches',
      json: {
        devices: ['BAT-EU-001-A', 'BAT-EU-002-A'],
        command: {
          powerControl: { targetBatteryPowerW: 1200 },
          startTime: new Date(startMs).toISOString(),
          endTime: new Date(startMs + 20 * MINUTE_MS).toISOString(),
        },
      },
      headers: { 'idempotency-key': `"${randomUUID()}"` },
    });
    expect(sent.status).toBe(202);
    const { batchCommandId } = BatchSubmissionResponseSchema.parse(sent.json());
    if (!batchCommandId) throw new Error('the batch was answered at once: it has its ID');
    const outcome = async () => {
      const page = LedgerPageSchema.parse(
        (await browser.get(`/api/ledger?batchCommandId=${batchCommandId}&kind=batch`)).json(),
      );
      return page.entries[0]?.outcome;
    };
    for (let i = 0; i < 4 && (await outcome())?.confirmation !== 'confirmed'; i += 1) {
      await stack.admin.advanceClock(30_000);
      await reads.runDue();
    }
    expect((await outcome())?.confirmation).toBe('confirmed');
    const commandOf = async (deviceId: string) => {
      const found = (await outcome())?.commands?.find((c) => c.deviceId === deviceId);
      if (!found) throw new Error(`the command of ${deviceId} was found`);
      return found.id;
    };
    // The Hamburg device's command is cancelled by an operator, then its site is unbound.
    const hamburg = await commandOf('BAT-EU-002-A');
    await stack.admin.advanceClock(MINUTE_MS);
    expect((await browser.put(`/api/devices/BAT-EU-002-A/commands/${hamburg}/cancel`)).status).toBe(
      200,
    );
    expect((await browser.delete('/api/sites/PLANT-EU-002')).status).toBe(204);

    // Its status route answers nothing of it now; the batch says how it ended instead.
    expect((await browser.get(`/api/devices/BAT-EU-002-A/commands/${hamburg}`)).status).toBe(404);
    expect((await outcome())?.unbound).toEqual([
      { deviceId: 'BAT-EU-002-A', lastStatus: 'cancelled', lastCancelReason: 'manuallyCancel' },
    ]);

    // The overview counts it over, as before: the batch is under way while the bound device's
    // command waits, and no longer once that one is cancelled too.
    const underWay = async () =>
      OverviewSchema.parse((await browser.get('/api/overview')).json()).batches.map(
        (b) => b.batchCommandId,
      );
    expect(await underWay()).toEqual([batchCommandId]);
    await stack.admin.advanceClock(MINUTE_MS);
    const munich = await commandOf('BAT-EU-001-A');
    expect((await browser.put(`/api/devices/BAT-EU-001-A/commands/${munich}/cancel`)).status).toBe(
      200,
    );
    expect(await underWay()).toEqual([]);
  }, 60_000);
});
