/**
 * `POST /api/deliverable` against the sandbox's physical model (docs/verification.md, Deliverable
 * power before sending), BFF + sandbox in process on the sandbox's clock: one `latestData/query`
 * for the devices not read in the last few minutes (at most 100 a call: budgeted-telemetry.test.ts
 * shows the split), the power the demo's Leipzig devices can hold for two hours (its two devices
 * near a cut-off cannot), a device whose calls a change keeps, and a device flagged from its
 * verdicts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '#domain/account.ts';
import type { StatusRecord } from '#domain/command.ts';
import { DeliverableAnswerSchema } from '#domain/deliverable.ts';
import { SNAPSHOT_FRESH_MS } from '#domain/fleet-power.ts';
import type { Verdict } from '#domain/verdict.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const LEIPZIG = Array.from(
  { length: 60 },
  (_, index) => `BAT-EU-100-${String(index + 1).padStart(2, '0')}`,
);
const BERLIN = ['BAT-EU-001-A', 'BAT-EU-001-B', 'BAT-EU-001-C'];
const HAMBURG = ['BAT-EU-002-A', 'BAT-EU-002-B'];
/** Every demo-eu device and one no bound site has: 66 IDs, 65 read. */
const SELECTION = [...LEIPZIG, ...BERLIN, ...HAMBURG, 'BAT-EU-NOWHERE'];

let stack: Stack;
let browser: BrowserClient;

beforeAll(async () => {
  // No refresher ticks: the only vendor calls counted are the site list and the snapshots.
  stack = await startStack({ followSandboxClock: true, bff: { testing: { readModelTickMs: 0 } } });
  browser = stack.browser();
  expect((await browser.signIn(DEMO_EU)).status).toBe(200);
  for (const siteId of ['PLANT-EU-001', 'PLANT-EU-002', 'PLANT-EU-100'])
    expect((await browser.post('/api/sites', { siteId })).status).toBe(201);
  // A snapshot's reads yield to the read model's first read of each newly bound device (decision
  // 007, section 1): that read is done, and its call a minute old.
  await stack.bff.readModel.reads.runDue();
  await stack.admin.advanceClock(MINUTE_MS);
});
afterAll(() => stack?.close());

async function snapshotCalls(): Promise<number> {
  const { byRoute } = (await stack.admin.stats()) as { byRoute: Record<string, number> };
  return byRoute['eu POST /devices/latestData/query'] ?? 0;
}

async function deliverable(deviceIds: readonly string[], targetBatteryPowerW?: number) {
  const nowMs = await stack.admin.nowMs();
  const startMs = Math.ceil((nowMs + 10 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
  const answer = await browser.post('/api/deliverable', {
    deviceIds,
    ...(targetBatteryPowerW === undefined
      ? {}
      : {
          command: {
            powerControl: { targetBatteryPowerW },
            startTime: new Date(startMs).toISOString(),
            endTime: new Date(startMs + 2 * HOUR_MS).toISOString(),
          },
        }),
  });
  expect(answer.status).toBe(200);
  return DeliverableAnswerSchema.parse(answer.json());
}

/** Three verdicts of a device, newest last, as the verification would have kept them. */
async function seedVerdicts(deviceId: string, verdicts: readonly Verdict[]) {
  const { store } = stack.bff.verdicts.verification;
  const account = { region: 'eu', clientId: DEMO_EU.clientId } as Account;
  const nowMs = await stack.admin.nowMs();
  for (const [index, verdict] of verdicts.entries()) {
    const startMs = nowMs - (verdicts.length - index + 1) * 3 * HOUR_MS;
    const record: StatusRecord = {
      id: `seeded-${deviceId}-${index}`,
      deviceId,
      powerControl: { targetBatteryPowerW: 3000 },
      startTime: new Date(startMs).toISOString(),
      endTime: new Date(startMs + HOUR_MS).toISOString(),
      status: 'completed',
      receivedAt: new Date(startMs - HOUR_MS).toISOString(),
    };
    const window = { windowStartMs: startMs, windowEndMs: startMs + HOUR_MS };
    await store.plan(account, [{ record, ...window, dueAtMs: startMs + 2 * HOUR_MS }], nowMs);
    await store.saveVerdict(
      { region: 'eu', clientId: DEMO_EU.clientId, deviceId, commandId: record.id },
      {
        record,
        ...window,
        verdict: {
          verdict,
          commandedEnergyWh: 3000,
          deliveredEnergyWh: verdict === 'delivered' ? 3000 : 0,
          coverage: 1,
          samples: {
            expected: 60,
            present: 60,
            following: 0,
            limitedBySoc: 0,
            limitedBySiteLimit: 0,
          },
          alarms: [],
        },
        samplingPeriodMs: MINUTE_MS,
        samples: { atMs: [], batteryPowerW: [], socPercent: [], gridPowerW: [], pvPowerW: [] },
        readToMs: startMs + HOUR_MS,
        calls: 1,
        computedAtMs: nowMs,
      },
    );
  }
}

describe('deliverable power before sending', () => {
  it('reads the 60 Leipzig devices in one call, and answers what they hold for two hours', async () => {
    const before = await snapshotCalls();
    const answer = await deliverable(LEIPZIG, 2500);
    // 60 devices: one call.
    expect((await snapshotCalls()) - before).toBe(1);
    expect(answer.snapshot).toEqual({ calls: 1, read: 60, deferred: 0 });
    // -16 and -17 start 5 points above their 10% cut-off: 1 kWh of their 20 kWh, 24 min at 2.5 kW,
    // 500 W over two hours. Every other device keeps at least 50% in self-consumption: 8 kWh.
    expect(answer.power?.cannotLast.map((device) => device.deviceId)).toEqual([
      'BAT-EU-100-16',
      'BAT-EU-100-17',
    ]);
    for (const device of answer.power?.cannotLast ?? []) {
      expect(device.limitedBy).toBe('stateOfCharge');
      expect(device.lastsMs).toBeCloseTo(24 * MINUTE_MS, -4);
      expect(device.deliverableW).toBeCloseTo(500, -1);
    }
    expect(answer.power).toMatchObject({
      requestedW: 2500,
      durationMs: 2 * HOUR_MS,
      commandedW: 150_000,
      measured: 60,
      notMeasured: [],
    });
    expect(answer.power?.deliverableW).toBeCloseTo(58 * 2500 + 2 * 500, -1);
  });

  it('reads no device again within a few minutes, and only the devices not read yet', async () => {
    const before = await snapshotCalls();
    const again = await deliverable(LEIPZIG, 2500);
    expect(again.snapshot).toEqual({ calls: 0, read: 0, deferred: 0 });
    expect(again.power?.measured).toBe(60);

    // The whole demo-eu account: only its five devices outside Leipzig are read, in one call.
    const whole = await deliverable(SELECTION, 2500);
    expect((await snapshotCalls()) - before).toBe(1);
    expect(whole.snapshot).toMatchObject({ calls: 1, read: 5 });
    expect(whole.unknown).toEqual(['BAT-EU-NOWHERE']);
    expect(whole.devices).toBe(66);
    expect(whole.power?.commandedW).toBe(65 * 2500);
    // The Hamburg store's second battery is offline: no sample, not measured.
    expect(whole.power?.notMeasured).toEqual([{ deviceId: 'BAT-EU-002-B', reason: 'silent' }]);

    await stack.admin.advanceClock(SNAPSHOT_FRESH_MS + MINUTE_MS);
    const later = await deliverable(SELECTION, 2500);
    // 65 devices, one call of 65 again once their reads are older than a few minutes.
    expect(later.snapshot).toMatchObject({ calls: 1, read: 65 });
    expect((await snapshotCalls()) - before).toBe(2);
  });

  it('flags a device that did not follow 2 of its last 3 commands, reading nothing without a target', async () => {
    await seedVerdicts('BAT-EU-100-11', ['notFollowing', 'notFollowing', 'delivered']);
    await seedVerdicts('BAT-EU-100-12', ['notFollowing', 'delivered', 'delivered']);
    const before = await snapshotCalls();
    const answer = await deliverable(LEIPZIG);
    expect(answer.notFollowing).toEqual([{ deviceId: 'BAT-EU-100-11', notFollowing: 2, of: 3 }]);
    expect(answer.power).toBeUndefined();
    expect(answer.snapshot).toEqual({ calls: 0, read: 0, deferred: 0 });
    expect(await snapshotCalls()).toBe(before);
  });

  it('leaves a device whose calls a change keeps unread, and says when it can be read', async () => {
    // Its latest sample now older than a snapshot counts as measured.
    await stack.admin.advanceClock(12 * MINUTE_MS);
    const deviceId = 'BAT-EU-100-20';
    const nowMs = await stack.admin.nowMs();
    const startMs = Math.ceil((nowMs + 30 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
    // The submission takes one of the device's two calls of the minute; the other is kept for a
    // change that may still follow, so no background read takes it.
    const submitted = await browser.post(`/api/devices/${deviceId}/commands`, {
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(startMs).toISOString(),
      endTime: new Date(startMs + HOUR_MS).toISOString(),
    });
    expect(submitted.status).toBe(202);
    const before = await snapshotCalls();
    const answer = await deliverable([deviceId], 2500);
    expect(await snapshotCalls()).toBe(before);
    expect(answer.snapshot).toMatchObject({ calls: 0, read: 0, deferred: 1 });
    const readableAtMs = Date.parse(answer.snapshot.readableAt ?? '');
    expect(readableAtMs).toBeGreaterThan(nowMs);
    expect(readableAtMs).toBeLessThanOrEqual(nowMs + 2 * MINUTE_MS);
    expect(answer.power).toMatchObject({
      measured: 0,
      deliverableW: 0,
      notMeasured: [{ deviceId, reason: 'budget', readableAt: answer.snapshot.readableAt }],
    });
  });
});
