import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import { HOUR_MS, MINUTE_MS, submit } from './support/steps.ts';
import { ErrorBodySchema } from '#sandbox/vendor/schemas.ts';
import {
  AlarmListSchema,
  ConfigurationSetAnswerSchema,
  DeviceConfigurationSchema,
  DeviceEnergyStatisticsSchema,
  DeviceTelemetryHistorySchema,
  DeviceTelemetrySchema,
  LatestDataAnswerSchema,
} from '#sandbox/vendor/telemetry-schemas.ts';

/**
 * Telemetry, energy, alarms and configuration (docs/upstream.md, Telemetry). Every answer is
 * validated against docs/upstream.openapi.yaml by the suite's HTTP helper before a test sees it.
 */
const target = useContractTarget();

const iso = (epochMs: number) => new Date(epochMs).toISOString();

describe('telemetry (docs/upstream.md, Telemetry)', () => {
  it('answers the latest sample of a device, and of several at once', async () => {
    const { deviceId } = target.config;
    const latest = await target.upstream.latestData(deviceId);
    expect(latest.status).toBe(200);
    expect(DeviceTelemetrySchema.parse(latest.body).deviceId).toBe(deviceId);
    const devices = [deviceId, target.config.secondDeviceId].filter(
      (id): id is string => id !== undefined,
    );
    const query = await target.upstream.latestDataOf(devices);
    expect(query.status).toBe(200);
    expect(LatestDataAnswerSchema.parse(query.body).map((t) => t.deviceId)).toEqual(devices);
  });

  it('pages the history of a range, oldest first; 400 beyond 30 days', async () => {
    const { deviceId } = target.config;
    const nowMs = Date.parse(
      DeviceTelemetrySchema.parse((await target.upstream.latestData(deviceId)).body).timestamp,
    );
    const range = { startTime: iso(nowMs - HOUR_MS), endTime: iso(nowMs) };
    const page = DeviceTelemetryHistorySchema.parse(
      (await target.upstream.telemetryHistory(deviceId, { ...range, size: '10', page: '2' })).body,
    );
    expect(page).toMatchObject({ deviceId, page: 2, size: 10 });
    expect(page.total).toBeGreaterThan(10);
    const times = page.data.map((sample) => Date.parse(sample.timestamp));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    await target.nextMinute();
    const tooLong = await target.upstream.telemetryHistory(deviceId, {
      startTime: iso(nowMs - 31 * 24 * HOUR_MS),
      endTime: iso(nowMs),
    });
    expect(tooLong.status).toBe(400);
    expect(ErrorBodySchema.parse(tooLong.body).errorCode).toBe('INVALID_REQUEST');
  });

  it('answers energy per day and the configuration', async () => {
    const { deviceId, siteId } = target.config;
    const today = new Date().toISOString().slice(0, 10);
    const energy = await target.upstream.energy(deviceId, {
      siteId,
      period: 'day',
      startDate: today,
      endDate: today,
    });
    expect(energy.status).toBe(200);
    expect(DeviceEnergyStatisticsSchema.parse(energy.body)).toMatchObject({ deviceId, siteId });
    const configuration = await target.upstream.configuration(deviceId);
    expect(configuration.status).toBe(200);
    DeviceConfigurationSchema.parse(configuration.body);
  });

  it('sets a configuration field and reads it back', async (context) => {
    target.requireAdmin(context, 'undo the configuration it sets (reset)');
    const { deviceId } = target.config;
    const set = await target.upstream.setConfiguration(deviceId, { samplingRate: 300 });
    expect(set.status).toBe(200);
    expect(ConfigurationSetAnswerSchema.parse(set.body).set).toEqual([{ samplingRate: 300 }]);
    const read = await target.upstream.configuration(deviceId);
    expect(DeviceConfigurationSchema.parse(read.body).samplingRate).toBe(300);
  });

  it('lists an active fault alarm once a fault cancels a command', async (context) => {
    const admin = target.requireAdmin(context, 'fault a device');
    const { deviceId } = target.config;
    await admin.setClock(iso(target.baseMs));
    await submit(target, deviceId, target.window(0, HOUR_MS));
    await admin.advanceClock(10 * MINUTE_MS);
    await admin.setDevice(deviceId, { fault: true });
    const alarms = await target.upstream.alarms(deviceId, { status: 'active' });
    expect(alarms.status).toBe(200);
    expect(AlarmListSchema.parse(alarms.body).alarms).toEqual([
      expect.objectContaining({ alarmLevel: 'fault', status: 'active' }),
    ]);
  });
});
