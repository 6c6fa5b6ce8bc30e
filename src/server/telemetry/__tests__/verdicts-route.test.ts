/**
 * A submitted command's verdict, from the submission to `GET /api/devices/{deviceId}/verdicts`:
 * one telemetry read of the device after its window, by the durable queue, and the answer from
 * the database (docs/verification.md; decision 007, section 3).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { DeviceVerdictsAnswerSchema } from '#domain/verdict-answer.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { CSRF, buildTestBff, signIn, type TestBff } from '../../__tests__/support/bff.ts';
import {
  startFakeUpstream,
  vendorCommand,
  vendorPage,
  vendorSite,
  type FakeUpstream,
} from '../../__tests__/support/fake-upstream.ts';

const MINUTE = 60_000;
const START = Date.parse('2026-05-01T11:00:00Z');
const END = Date.parse('2026-05-01T12:00:00Z');
const command = {
  powerControl: { targetBatteryPowerW: 4000 },
  startTime: new Date(START).toISOString(),
  endTime: new Date(END).toISOString(),
};

/** The vendor's `DeviceTelemetryHistory` page of a device discharging 4 kW every minute. */
function telemetryPage(request: FastifyRequest) {
  const query = request.query as Record<string, string>;
  const fromMs = Date.parse(query.startTime ?? '');
  const toMs = Date.parse(query.endTime ?? '');
  const data = [];
  for (let atMs = Math.ceil(fromMs / MINUTE) * MINUTE; atMs <= toMs; atMs += MINUTE)
    data.push({
      deviceId: 'BAT-1',
      timestamp: new Date(atMs).toISOString(),
      battery: { powerKw: 4, socPercent: 80 - (atMs - START) / (3 * MINUTE) },
      meter: { gridPowerKw: -3.2 },
      pv: { powerKw: 0 },
    });
  return { deviceId: 'BAT-1', total: data.length, page: 1, size: 500, data };
}

describe("a device's verdicts", () => {
  let fake: FakeUpstream;
  let testDb: TestDatabase;
  let database: DatabaseHandle;
  let bff: TestBff;
  let cookie: string;
  const submitted: ({ id: string } & typeof command)[] = [];

  beforeAll(async () => {
    fake = await startFakeUpstream();
    testDb = await createTestDatabase('pglite');
    database = await testDb.open();
    fake.on('POST', '/device/BAT-1/commands', (request: FastifyRequest, reply: FastifyReply) => {
      const id = `cmd_${submitted.length + 1}`;
      submitted.push({ id, ...(request.body as typeof command) });
      return reply.code(202).send({ id, message: 'ok', timestamp: '2026-05-01T10:00:00Z' });
    });
    fake.on('GET', '/devices/BAT-1/historicalData', telemetryPage);
    // The read model reads the device's history: each command runs its window on the clock.
    fake.on('GET', '/device/BAT-1/commands', () =>
      vendorPage(
        'commands',
        submitted.map(({ id, ...sent }) => {
          const nowMs = bff.clock.nowMs;
          const started = nowMs >= Date.parse(sent.startTime);
          const ended = nowMs >= Date.parse(sent.endTime);
          return vendorCommand({
            id,
            deviceId: 'BAT-1',
            ...sent,
            status: ended ? 'completed' : started ? 'executing' : 'received',
            receivedAt: '2026-05-01T10:00:00Z',
            ...(started ? { startedAt: sent.startTime } : {}),
            ...(ended ? { completedAt: sent.endTime } : {}),
          });
        }),
      ),
    );
    fake.on('GET', '/sites', () => vendorPage('sites', [vendorSite('PLANT-1', ['BAT-1'])]));
    bff = await buildTestBff(fake, {
      database,
      // Sessions on their own clock: only the upstream's moves past the window.
      testing: {
        now: () => Date.parse('2026-05-01T10:00:00Z'),
        readModelTickMs: 0,
        verdictQueue: { pollingIntervalSeconds: 0.5 },
      },
    });
    cookie = await signIn(bff.app);
  });
  afterAll(async () => {
    await bff?.app.close();
    await fake.close();
    await testDb.drop();
  });

  const verdicts = async (deviceId: string) =>
    bff.app.inject({
      method: 'GET',
      url: `/api/devices/${deviceId}/verdicts`,
      headers: { cookie },
    });

  it('gets one after its window from one telemetry read, answered without a call', async () => {
    const submitted = await bff.app.inject({
      method: 'POST',
      url: '/api/devices/BAT-1/commands',
      headers: { cookie, ...CSRF, 'idempotency-key': 'verdict-1' },
      payload: command,
    });
    expect(submitted.statusCode).toBe(202);
    const none = await verdicts('BAT-1');
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ deviceId: 'BAT-1', verdicts: [] });

    const { queue } = bff.app.verdicts;
    await queue.start();
    bff.clock.nowMs = END + 30_000;
    expect(await queue.recheck()).toBe(0);
    bff.clock.nowMs = END + MINUTE;
    // The read model reads the device's end of window first (a telemetry read waits for it), and
    // its call leaves the telemetry read none until a window later: one read a minute, as the
    // vendor's 2 calls leave one for a change.
    await bff.app.readModel.reads.runDue();
    await vi.waitFor(async () => {
      await queue.recheck();
      expect(queue.counts.outcomes.waiting).toBe(1);
    });
    bff.clock.nowMs = END + 2 * MINUTE;
    let answer = DeviceVerdictsAnswerSchema.parse((await verdicts('BAT-1')).json());
    for (let tries = 0; answer.verdicts.length === 0 && tries < 100; tries += 1) {
      await queue.recheck();
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = DeviceVerdictsAnswerSchema.parse((await verdicts('BAT-1')).json());
    }
    const [verdict] = answer.verdicts;
    expect(verdict).toMatchObject({
      deviceId: 'BAT-1',
      commandId: 'cmd_1',
      powerControl: { targetBatteryPowerW: 4000 },
      judgedFrom: command.startTime,
      judgedTo: command.endTime,
      samplingPeriodMs: MINUTE,
      result: {
        verdict: 'delivered',
        commandedEnergyWh: 4000,
        deliveredEnergyWh: expect.closeTo(4000, 6),
        coverage: 1,
        samples: { expected: 60, present: 60, following: 60 },
      },
    });
    expect(verdict?.samples?.atMs).toHaveLength(60);
    expect(verdict?.samples?.gridPowerW[0]).toBe(-3200);

    const telemetryReads = fake.seen.filter((seen) => seen.url.includes('/historicalData'));
    expect(telemetryReads).toHaveLength(1);
    const query = new URLSearchParams(telemetryReads[0]?.url.split('?')[1]);
    expect(Object.fromEntries(query)).toEqual({
      startTime: new Date(START - MINUTE).toISOString(),
      endTime: command.endTime,
      page: '1',
      size: '500',
    });
    // Reading the verdicts again calls nothing upstream.
    const calls = fake.seen.length;
    expect((await verdicts('BAT-1')).statusCode).toBe(200);
    expect(fake.seen.length).toBe(calls);
  });

  it('reads a running window an operator watches at most every five minutes, and answers it judged so far', async () => {
    const startMs = START + 24 * 60 * MINUTE;
    const window = {
      ...command,
      startTime: new Date(startMs).toISOString(),
      endTime: new Date(startMs + 60 * MINUTE).toISOString(),
    };
    const sent = await bff.app.inject({
      method: 'POST',
      url: '/api/devices/BAT-1/commands',
      headers: { cookie, ...CSRF, 'idempotency-key': 'verdict-2' },
      payload: window,
    });
    expect(sent.json()).toMatchObject({ id: 'cmd_2' });
    bff.clock.nowMs = startMs + 20 * MINUTE;
    await bff.app.readModel.reads.runDue();
    const watch = async () =>
      (
        await bff.app.inject({
          method: 'POST',
          url: '/api/devices/BAT-1/watch',
          headers: { cookie, ...CSRF },
        })
      ).json();
    const windowReads = () =>
      fake.seen.filter(
        (seen) =>
          seen.url.includes('/historicalData') &&
          seen.url.includes(encodeURIComponent(new Date(startMs - MINUTE).toISOString())),
      );
    expect(await watch()).toEqual({ deviceId: 'BAT-1', windowsDue: 1 });
    // The read model's read just took the call a telemetry read could: it goes a window later.
    bff.clock.nowMs = startMs + 21 * MINUTE;
    const { queue } = bff.app.verdicts;
    let answer = DeviceVerdictsAnswerSchema.parse((await verdicts('BAT-1')).json());
    await vi.waitFor(async () => {
      await queue.recheck();
      answer = DeviceVerdictsAnswerSchema.parse((await verdicts('BAT-1')).json());
      expect(answer.running).toHaveLength(1);
    });
    // Read to its last period but one; the vendor's lag keeps the newest out.
    expect(answer.running?.[0]).toMatchObject({
      commandId: 'cmd_2',
      running: true,
      judgedFrom: window.startTime,
      judgedTo: new Date(startMs + 20 * MINUTE).toISOString(),
      result: {
        verdict: 'delivered',
        commandedEnergyWh: expect.closeTo((4000 * 20) / 60, 6),
        samples: { expected: 20, present: 20 },
      },
    });
    expect(answer.running?.[0]?.samples?.atMs).toHaveLength(20);
    expect(windowReads()).toHaveLength(1);
    // Watched again a minute later: the next read waits its five minutes.
    bff.clock.nowMs = startMs + 22 * MINUTE;
    await watch();
    expect(await queue.recheck()).toBe(0);
    expect(windowReads()).toHaveLength(1);
  });

  it('refuses a device of no bound site', async () => {
    const refused = await verdicts('BAT-ELSEWHERE');
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ code: 'unknown_or_unbound' });
  });
});
