import { beforeEach, describe, expect, it } from 'vitest';
import {
  EnvelopeSchema,
  ErrorBodySchema,
  RateLimitBodySchema,
  StatusRecordSchema,
  SubmissionAnswerSchema,
} from '../vendor/schemas.ts';
import {
  AlarmListSchema,
  ConfigurationSetAnswerSchema,
  DeviceConfigurationSchema,
  DeviceEnergyStatisticsSchema,
  DeviceTelemetryHistorySchema,
  DeviceTelemetrySchema,
  LatestDataAnswerSchema,
} from '../vendor/telemetry-schemas.ts';
import {
  EU,
  HOUR_MS,
  iso,
  MINUTE_MS,
  useSandboxHarness,
  WALL_MS,
} from './support/sandbox-harness.ts';

/**
 * The vendor's telemetry, energy, alarm and configuration operations over HTTP (docs/upstream.md,
 * Telemetry), on the harness's frozen wall clock; the clock moves a minute on where a test calls
 * about a device more than twice (docs/upstream.md, Rate limit).
 */
const sandbox = useSandboxHarness();
let token: string;
beforeEach(async () => {
  token = await sandbox.boundToken('PLANT-EU-100');
});

const DEVICE = 'BAT-EU-100-01';
const get = (path: string, asToken = token) =>
  sandbox.call('GET', `${EU}${path}`, { token: asToken });
const history = (deviceId: string, query: string) =>
  get(`/devices/${deviceId}/historicalData?${query}`);
const rangeQuery = (fromMs: number, toMs: number) =>
  `startTime=${iso(fromMs)}&endTime=${iso(toMs)}`;

describe('latestData', () => {
  it('answers the last sample at or before now in the vendor shape', async () => {
    await sandbox.admin('POST', '/clock', { advanceMs: 90_000 });
    const response = await get(`/devices/${DEVICE}/latestData`);
    expect(response.status).toBe(200);
    const latest = DeviceTelemetrySchema.strict().parse(response.body);
    expect(latest.deviceId).toBe(DEVICE);
    expect(latest.timestamp).toBe(iso(WALL_MS + MINUTE_MS));
    // The meter balances: load = grid + inverter, and the inverter is PV plus battery.
    expect(latest.inverter.powerKw).toBeCloseTo(latest.pv.powerKw + latest.battery.powerKw, 2);
  });

  it('is 404 in the same words for a device of a site not bound and an unknown one', async () => {
    const notBound = await get('/devices/BAT-EU-001-A/latestData');
    const unknown = await get('/devices/BAT-NOPE/latestData');
    expect(notBound.status).toBe(404);
    expect(ErrorBodySchema.parse(notBound.body).message).toBe(
      ErrorBodySchema.parse(unknown.body).message.replace('BAT-NOPE', 'BAT-EU-001-A'),
    );
  });

  it('is 404 for a device that has never sent a sample (offline since before the model)', async () => {
    const offlineToken = await sandbox.boundToken('PLANT-EU-002');
    const response = await get('/devices/BAT-EU-002-B/latestData', offlineToken);
    expect(response.status).toBe(404);
    expect(ErrorBodySchema.parse(response.body).message).toContain('no telemetry');
  });

  it('query: one sample per device in request order, each device counted once', async () => {
    const devices = ['BAT-EU-100-02', 'BAT-EU-100-01'];
    const query = () =>
      sandbox.call('POST', `${EU}/devices/latestData/query`, { token, json: { devices } });
    const first = await query();
    expect(first.status).toBe(200);
    expect(LatestDataAnswerSchema.parse(first.body).map((t) => t.deviceId)).toEqual(devices);
    expect((await get('/devices/BAT-EU-100-01/latestData')).status).toBe(200);
    // BAT-EU-100-01 has spent its two calls of the minute: it is left out, -02 still answers.
    const second = await query();
    expect(LatestDataAnswerSchema.parse(second.body).map((t) => t.deviceId)).toEqual([
      'BAT-EU-100-02',
    ]);
    // Every device over the limit: 429 naming the one whose slot frees last.
    const third = await query();
    expect(third.status).toBe(429);
    expect(RateLimitBodySchema.parse(third.body).details.limit).toBe(2);
    await sandbox.nextMinute();
    expect((await query()).status).toBe(200);
  });

  it('query: 404 naming every device not yours, spending nothing; 400 beyond 100 devices', async () => {
    const refused = await sandbox.call('POST', `${EU}/devices/latestData/query`, {
      token,
      json: { devices: [DEVICE, 'BAT-EU-001-A', 'BAT-NOPE'] },
    });
    expect(refused.status).toBe(404);
    expect(ErrorBodySchema.parse(refused.body).message).toContain('BAT-EU-001-A, BAT-NOPE');
    const stats = (await sandbox.admin('GET', '/stats')).body as {
      byDevice: Record<string, unknown>;
    };
    expect(stats.byDevice[`eu ${DEVICE}`]).toBeUndefined();
    const tooMany = await sandbox.call('POST', `${EU}/devices/latestData/query`, {
      token,
      json: { devices: Array.from({ length: 101 }, (_, i) => `BAT-X-${i}`) },
    });
    expect(tooMany.status).toBe(400);
    expect(ErrorBodySchema.parse(tooMany.body).errorCode).toBe('INVALID_REQUEST');
  });

  it('is wrapped by the envelope dialect', async () => {
    await sandbox.admin('PUT', '/dialect', { envelope: true });
    const response = await get(`/devices/${DEVICE}/latestData`);
    const envelope = EnvelopeSchema.parse(response.body);
    expect(envelope.code).toBe(200);
    expect(DeviceTelemetrySchema.parse(envelope.data).deviceId).toBe(DEVICE);
  });
});

describe('historicalData', () => {
  it('pages the samples of a range, oldest first, both ends included', async () => {
    const from = WALL_MS - 2 * HOUR_MS;
    const firstPage = DeviceTelemetryHistorySchema.parse(
      (await history(DEVICE, `${rangeQuery(from, WALL_MS)}&size=100`)).body,
    );
    expect(firstPage).toMatchObject({ deviceId: DEVICE, total: 121, page: 1, size: 100 });
    expect(firstPage.data).toHaveLength(100);
    expect(firstPage.data[0]?.timestamp).toBe(iso(from));
    const last = DeviceTelemetryHistorySchema.parse(
      (await history(DEVICE, `${rangeQuery(from, WALL_MS)}&size=100&page=2`)).body,
    );
    expect(last.data.map((t) => t.timestamp)).toEqual(
      Array.from({ length: 21 }, (_, i) => iso(from + (100 + i) * MINUTE_MS)),
    );
  });

  it('has no samples after now; the default page is 20', async () => {
    const response = DeviceTelemetryHistorySchema.parse(
      (await history(DEVICE, rangeQuery(WALL_MS - 10 * MINUTE_MS, WALL_MS + HOUR_MS))).body,
    );
    expect(response).toMatchObject({ total: 11, page: 1, size: 20 });
  });

  it.each([
    ['a range over 30 days', rangeQuery(WALL_MS - 31 * 24 * HOUR_MS, WALL_MS), 'endTime'],
    ['an end before the start', rangeQuery(WALL_MS, WALL_MS - HOUR_MS), 'endTime'],
    ['no endTime', `startTime=${iso(WALL_MS)}`, 'endTime'],
    ['a page of 501', `${rangeQuery(WALL_MS - HOUR_MS, WALL_MS)}&size=501`, 'size'],
    [
      'an unknown parameter',
      `${rangeQuery(WALL_MS - HOUR_MS, WALL_MS)}&status=completed`,
      'status',
    ],
  ])('is 400 for %s, naming the field', async (_what, query, field) => {
    const response = await history(DEVICE, query);
    expect(response.status).toBe(400);
    const body = ErrorBodySchema.parse(response.body);
    expect(body.errorCode).toBe('INVALID_REQUEST');
    expect(body.message).toContain(field);
  });

  it('answers in process what it answers over HTTP (app.sandboxSamples, in W)', async () => {
    const range = [WALL_MS - HOUR_MS, WALL_MS] as const;
    const page = DeviceTelemetryHistorySchema.parse(
      (await history(DEVICE, `${rangeQuery(...range)}&size=500`)).body,
    );
    const samples = sandbox.app.sandboxSamples(DEVICE, ...range);
    expect(samples.map((s) => iso(s.atMs))).toEqual(page.data.map((t) => t.timestamp));
    expect(samples.map((s) => Math.round(s.batteryPowerW) / 1000)).toEqual(
      page.data.map((t) => t.battery.powerKw),
    );
  });

  it('shows a command: the battery at its target through the window', async () => {
    const submitted = await sandbox.call('POST', `${EU}/device/${DEVICE}/commands`, {
      token,
      json: {
        powerControl: { targetBatteryPowerW: -2500 },
        startTime: iso(WALL_MS + 10 * MINUTE_MS),
        endTime: iso(WALL_MS + 40 * MINUTE_MS),
      },
    });
    expect(submitted.status).toBe(202);
    await sandbox.admin('POST', '/clock', { advanceMs: HOUR_MS });
    const samples = DeviceTelemetryHistorySchema.parse(
      (
        await history(
          DEVICE,
          `${rangeQuery(WALL_MS + 11 * MINUTE_MS, WALL_MS + 40 * MINUTE_MS)}&size=500`,
        )
      ).body,
    ).data;
    expect(samples).toHaveLength(30);
    for (const sample of samples) expect(sample.battery.powerKw).toBe(-2.5);
  });
});

describe('configuration', () => {
  it('round trip: a PUT sets only the fields sent, a GET shows them, samples follow the rate', async () => {
    const before = DeviceConfigurationSchema.parse(
      (await get(`/devices/${DEVICE}/configuration`)).body,
    );
    expect(before).toEqual({
      operationMode: 'selfConsumption',
      chargeCutoffSocPercent: 100,
      dischargeCutoffSocPercent: 10,
      siteImportLimitW: 65535,
      siteExportLimitW: 65535,
      samplingRate: 60,
    });
    const put = await sandbox.call('PUT', `${EU}/devices/${DEVICE}/configuration`, {
      token,
      json: { samplingRate: 300, siteExportLimitW: 2000 },
    });
    expect(put.status).toBe(200);
    expect(ConfigurationSetAnswerSchema.parse(put.body)).toEqual({
      message: 'configuration set',
      // In the vendor's order of the fields.
      set: [{ siteExportLimitW: 2000 }, { samplingRate: 300 }],
      timestamp: iso(WALL_MS),
    });
    await sandbox.nextMinute();
    expect((await get(`/devices/${DEVICE}/configuration`)).body).toEqual({
      ...before,
      samplingRate: 300,
      siteExportLimitW: 2000,
    });
    const page = DeviceTelemetryHistorySchema.parse(
      (await history(DEVICE, rangeQuery(WALL_MS - HOUR_MS, WALL_MS))).body,
    );
    expect(page.total).toBe(13);
    expect(page.data[1]?.timestamp).toBe(iso(WALL_MS - HOUR_MS + 5 * MINUTE_MS));
  });

  it.each([
    [
      'a charge cut-off below the discharge cut-off',
      { chargeCutoffSocPercent: 5 },
      'chargeCutoffSocPercent',
    ],
    ['a sampling rate of 30', { samplingRate: 30 }, 'samplingRate'],
    ['a field the vendor does not have', { exportLimitW: 2000 }, 'exportLimitW'],
    ['no field', {}, 'at least one'],
  ])('PUT is 400 for %s', async (_what, json, words) => {
    const response = await sandbox.call('PUT', `${EU}/devices/${DEVICE}/configuration`, {
      token,
      json,
    });
    expect(response.status).toBe(400);
    expect(ErrorBodySchema.parse(response.body).message).toContain(words);
  });
});

describe('alarms and faults', () => {
  const submitWindow = async (deviceId: string) => {
    const submitted = await sandbox.call('POST', `${EU}/device/${deviceId}/commands`, {
      token,
      json: {
        powerControl: { targetBatteryPowerW: 3000 },
        startTime: iso(WALL_MS),
        endTime: iso(WALL_MS + HOUR_MS),
      },
    });
    return SubmissionAnswerSchema.parse(submitted.body).id;
  };

  it('a fault cancels the command deviceFault and lists an active fault alarm from then', async () => {
    const commandId = await submitWindow(DEVICE);
    await sandbox.admin('POST', '/clock', { advanceMs: 20 * MINUTE_MS });
    await sandbox.admin('PUT', `/devices/${DEVICE}`, { fault: true });
    const status = StatusRecordSchema.parse(
      (await get(`/devices/${DEVICE}/commands/${commandId}`)).body,
    );
    expect(status).toMatchObject({ status: 'cancelled', cancellReason: 'deviceFault' });
    const list = AlarmListSchema.parse((await get(`/devices/${DEVICE}/alarms`)).body);
    expect(list).toMatchObject({ deviceId: DEVICE, total: 1, page: 1, size: 20 });
    expect(list.alarms[0]).toMatchObject({
      alarmLevel: 'fault',
      status: 'active',
      startTime: status.cancelledAt,
    });
    await sandbox.nextMinute();
    await sandbox.admin('PUT', `/devices/${DEVICE}`, { fault: false });
    const resolved = AlarmListSchema.parse(
      (await get(`/devices/${DEVICE}/alarms?status=resolved&alarmLevel=fault`)).body,
    );
    expect(resolved.alarms).toEqual([
      expect.objectContaining({ status: 'resolved', endTime: iso(WALL_MS + 21 * MINUTE_MS) }),
    ]);
  });

  it('faultsDuringCommand: faults ten minutes into the command, which ends deviceFault', async () => {
    await sandbox.admin('PUT', `/devices/${DEVICE}`, { behaviour: 'faultsDuringCommand' });
    const commandId = await submitWindow(DEVICE);
    await sandbox.admin('POST', '/clock', { advanceMs: 2 * HOUR_MS });
    const status = StatusRecordSchema.parse(
      (await get(`/devices/${DEVICE}/commands/${commandId}`)).body,
    );
    expect(status).toMatchObject({
      status: 'cancelled',
      cancellReason: 'deviceFault',
      cancelledAt: iso(WALL_MS + 10 * MINUTE_MS),
    });
    const list = AlarmListSchema.parse((await get(`/devices/${DEVICE}/alarms?status=active`)).body);
    expect(list.alarms).toEqual([
      expect.objectContaining({ alarmLevel: 'fault', startTime: iso(WALL_MS + 10 * MINUTE_MS) }),
    ]);
  });

  it('goesOffline: a gap in the samples and a resolved communication alarm; the device stays online', async () => {
    await sandbox.admin('PUT', `/devices/${DEVICE}`, { behaviour: 'goesOffline' });
    await submitWindow(DEVICE);
    await sandbox.admin('POST', '/clock', { advanceMs: 30 * MINUTE_MS });
    const latest = DeviceTelemetrySchema.parse((await get(`/devices/${DEVICE}/latestData`)).body);
    expect(latest.timestamp).toBe(iso(WALL_MS + 4 * MINUTE_MS));
    expect((await get(`/devices/${DEVICE}`)).body).toMatchObject({ online: true });
    await sandbox.admin('POST', '/clock', { advanceMs: 2 * HOUR_MS });
    const list = AlarmListSchema.parse((await get(`/devices/${DEVICE}/alarms`)).body);
    expect(list.alarms).toEqual([
      {
        alarmLevel: 'alarm',
        alarmCode: 'COMM_LOST',
        alarmName: 'Communication lost',
        status: 'resolved',
        startTime: iso(WALL_MS + 5 * MINUTE_MS),
        endTime: iso(WALL_MS + 75 * MINUTE_MS),
      },
    ]);
  });

  it('alarms: 400 for an unknown level', async () => {
    const response = await get(`/devices/${DEVICE}/alarms?alarmLevel=severe`);
    expect(response.status).toBe(400);
  });
});

describe('energy', () => {
  it('per local day of the site, from the model origin to now; per month and year', async () => {
    const response = await get(
      `/devices/${DEVICE}/energy?siteId=PLANT-EU-100&period=day&startDate=2030-05-30&endDate=2030-06-02`,
    );
    const stats = DeviceEnergyStatisticsSchema.parse(response.body);
    // The model starts six hours before the fresh start, at 02:00 UTC (03:00 in Leipzig) on
    // 1 June; now is 09:00 there.
    expect(stats.data.map((point) => point.date)).toEqual(['2030-06-01']);
    for (const point of stats.data) {
      // The battery's energy is what the inverter gives beyond PV, and the grid's the load's rest.
      expect(point.inverterGenerationKwh - point.inverterConsumptionKwh).toBeCloseTo(
        point.pvGenerationKwh + point.batteryDischargeKwh - point.batteryChargeKwh,
        2,
      );
    }
    await sandbox.nextMinute();
    const year = DeviceEnergyStatisticsSchema.parse(
      (
        await get(
          `/devices/${DEVICE}/energy?siteId=PLANT-EU-100&period=year&startDate=2030-05-30&endDate=2030-06-02`,
        )
      ).body,
    );
    expect(year.data.map((point) => point.date)).toEqual(['2030']);
    // The year holds the same morning, and the minute the clock has moved on since.
    expect(year.data[0]?.pvGenerationKwh).toBeGreaterThanOrEqual(
      stats.data[0]?.pvGenerationKwh ?? 0,
    );
  });

  it("is 400 for a site that is not the device's, or an end before the start", async () => {
    const otherSite = await get(
      `/devices/${DEVICE}/energy?siteId=PLANT-EU-001&period=day&startDate=2030-06-01&endDate=2030-06-01`,
    );
    expect(otherSite.status).toBe(400);
    await sandbox.nextMinute();
    const backwards = await get(
      `/devices/${DEVICE}/energy?siteId=PLANT-EU-100&period=month&startDate=2030-06-01&endDate=2030-05-01`,
    );
    expect(backwards.status).toBe(400);
  });
});
