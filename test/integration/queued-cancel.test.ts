/**
 * A command has at most one queued change (docs/decisions/007-device-call-budget.md, section 2),
 * BFF + sandbox over real HTTP at the vendor's 2 calls per device per minute, the BFF on the
 * sandbox's clock: while a cancel of a command waits for the device's next call, a second cancel
 * of it (another attempt, another `Idempotency-Key`) and a replace of it are refused in words
 * with when the queued one goes, nothing more is queued, and the vendor sees one cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchSubmissionResponseSchema } from '#domain/batch.ts';
import { SubmissionResponseSchema } from '#domain/command.ts';
import { ProblemSchema } from '#domain/errors.ts';
import {
  QueuedAnswerSchema,
  QueuedChangePageSchema,
  QueuedChangeStatusSchema,
} from '#domain/queued-change.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const DEVICE = 'BAT-EU-001-B';
let stack: Stack;

beforeAll(async () => {
  // The read model reads only when the test says: every call of the device is the test's own.
  stack = await startStack({
    followSandboxClock: true,
    relay: true,
    bff: {
      testing: {
        readModelTickMs: 0,
        changeQueue: { pollingIntervalSeconds: 0.5, recheckIntervalMs: 100 },
      },
    },
  });
});
afterAll(() => stack?.close());

describe('a command whose cancel is queued', () => {
  it('refuses a second cancel and a replace of it in words, and the vendor sees one cancel', async () => {
    await stack.admin.reset();
    await stack.forgetUpstream();
    const relay = stack.relay;
    if (!relay) throw new Error('the stack was started with a relay');
    const cancels: string[] = [];
    relay.plan = (method, path) => {
      if (method === 'PUT' && path.includes(`/devices/${DEVICE}/commands/`)) cancels.push(path);
      return 'pass';
    };
    const browser: BrowserClient = stack.browser();
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
    // Binding reads the device once; the test's calls go in the next minute.
    await stack.bff.readModel.reads.runDue();
    await stack.admin.advanceClock(MINUTE_MS);

    const nowMs = await stack.admin.nowMs();
    const window = (fromMin: number) => ({
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(nowMs + fromMin * MINUTE_MS).toISOString(),
      endTime: new Date(nowMs + (fromMin + 10) * MINUTE_MS).toISOString(),
    });
    // Two submissions spend the device's two calls of this minute.
    const first = await browser.post(`/api/devices/${DEVICE}/commands`, window(30));
    expect(first.status).toBe(202);
    const { id } = SubmissionResponseSchema.parse(first.json());
    expect((await browser.post(`/api/devices/${DEVICE}/commands`, window(60))).status).toBe(202);

    const cancelPath = `/api/devices/${DEVICE}/commands/${id}/cancel`;
    const cancel = (key: string) =>
      browser.request({ method: 'PUT', path: cancelPath, headers: { 'idempotency-key': key } });
    const queued = await cancel('cancel-1');
    expect(queued.status).toBe(202);
    const { changeId, goesAt } = QueuedAnswerSchema.parse(queued.json()).queued;

    // Another attempt at the same cancel: refused, in words, with when the queued one goes.
    const again = await cancel('cancel-2');
    expect(again.status).toBe(409);
    const refusal = ProblemSchema.parse(again.json());
    expect(refusal.code).toBe('change_already_queued');
    expect(refusal.detail).toContain(`A cancel of command ${id} is already queued`);
    expect(refusal.detail).toMatch(/goes at \d\d:\d\d:\d\d site time \(\d\d:\d\d:\d\d UTC\)/);
    expect(refusal.detail).toContain('withdraw');
    expect(refusal.detail).not.toMatch(/commandId|T\d\d:\d\d/);
    expect(refusal.details).toMatchObject({ commandId: id, changeId, goesAt });

    // A replace of the command is the same refusal: its first step would cancel it too.
    const replace = await browser.request({
      method: 'POST',
      path: `/api/devices/${DEVICE}/changes`,
      headers: { 'idempotency-key': 'replace-1' },
      json: { kind: 'replace', commandId: id, command: window(90) },
    });
    expect(replace.status).toBe(409);
    expect(ProblemSchema.parse(replace.json()).code).toBe('change_already_queued');

    const waiting = QueuedChangePageSchema.parse(
      (await browser.get(`/api/changes?waiting=true&deviceId=${DEVICE}`)).json(),
    );
    expect(waiting.changes.map((change) => change.id)).toEqual([changeId]);

    // The device's next call: the one queued cancel goes.
    await stack.admin.advanceClock(MINUTE_MS);
    await stack.bff.changeQueue.recheck();
    await expect
      .poll(
        async () =>
          QueuedChangeStatusSchema.parse((await browser.get(`/api/changes/${changeId}`)).json())
            .state,
        { timeout: 10_000, interval: 100 },
      )
      .toBe('sent');
    expect(cancels).toEqual([expect.stringContaining(`/commands/${id}/cancel`)]);
  }, 60_000);
});

describe('a batch whose cancel is queued', () => {
  it('refuses a second cancel of the batch in words, queues nothing more, and the vendor sees one batch cancel', async () => {
    await stack.admin.reset();
    await stack.forgetUpstream();
    const relay = stack.relay;
    if (!relay) throw new Error('the stack was started with a relay');
    const batchCancels: string[] = [];
    relay.plan = (method, path) => {
      // The vendor's batch cancel: PUT /devices/commands/{batchCommandId}/cancel.
      if (method === 'PUT' && /\/devices\/commands\/[^/]+\/cancel/.test(path))
        batchCancels.push(path);
      return 'pass';
    };
    const browser: BrowserClient = stack.browser();
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    expect((await browser.post('/api/sites', { siteId: 'PLANT-EU-001' })).status).toBe(201);
    await stack.bff.readModel.reads.runDue();
    await stack.admin.advanceClock(MINUTE_MS);

    const nowMs = await stack.admin.nowMs();
    const window = (fromMin: number) => ({
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(nowMs + fromMin * MINUTE_MS).toISOString(),
      endTime: new Date(nowMs + (fromMin + 10) * MINUTE_MS).toISOString(),
    });
    const devices = ['BAT-EU-001-A', DEVICE];
    // The batch spends a call of each device, a submission to each the other.
    const batch = await browser.post('/api/batches', { devices, command: window(30) });
    expect(batch.status).toBe(202);
    const { batchCommandId } = BatchSubmissionResponseSchema.parse(batch.json());
    for (const deviceId of devices)
      expect((await browser.post(`/api/devices/${deviceId}/commands`, window(60))).status).toBe(
        202,
      );

    const cancel = (key: string) =>
      browser.request({
        method: 'PUT',
        path: `/api/batches/${batchCommandId}/cancel`,
        headers: { 'idempotency-key': key },
      });
    const queued = await cancel('batch-cancel-1');
    expect(queued.status).toBe(202);
    const { changeId, goesAt } = QueuedAnswerSchema.parse(queued.json()).queued;

    // Another attempt at the batch's cancel: refused, in words, with when the queued one goes.
    const again = await cancel('batch-cancel-2');
    expect(again.status).toBe(409);
    const refusal = ProblemSchema.parse(again.json());
    expect(refusal.code).toBe('change_already_queued');
    expect(refusal.detail).toContain(`A batch cancel of batch ${batchCommandId} is already queued`);
    expect(refusal.detail).toMatch(/goes at \d\d:\d\d:\d\d site time \(\d\d:\d\d:\d\d UTC\)/);
    expect(refusal.detail).toContain('withdraw');
    expect(refusal.detail).not.toMatch(/batchCommandId|T\d\d:\d\d/);
    expect(refusal.details).toMatchObject({ batchCommandId, changeId, goesAt });

    const waiting = QueuedChangePageSchema.parse(
      (await browser.get(`/api/changes?waiting=true&deviceId=${DEVICE}`)).json(),
    );
    expect(
      waiting.changes.filter((change) => change.kind === 'batchCancel').map((c) => c.id),
    ).toEqual([changeId]);

    // The devices' next calls: the one queued batch cancel goes.
    await stack.admin.advanceClock(MINUTE_MS);
    await stack.bff.changeQueue.recheck();
    await expect
      .poll(
        async () =>
          QueuedChangeStatusSchema.parse((await browser.get(`/api/changes/${changeId}`)).json())
            .state,
        { timeout: 10_000, interval: 100 },
      )
      .toBe('sent');
    expect(batchCancels).toEqual([
      expect.stringContaining(`/devices/commands/${batchCommandId}/cancel`),
    ]);
  }, 60_000);
});
