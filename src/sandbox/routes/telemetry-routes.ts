import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parse } from '../http/parse.ts';
import { authenticate, type RegionContext } from '../http/region-context.ts';
import { DeviceIdSchema } from '../vendor/schemas.ts';
import {
  AlarmQuerySchema,
  ConfigurationUpdateSchema,
  EnergyQuerySchema,
  LatestDataRequestSchema,
  TelemetryHistoryQuerySchema,
  type AlarmList,
  type ConfigurationSetAnswer,
  type DeviceConfiguration,
  type DeviceEnergyStatistics,
  type DeviceTelemetry,
  type DeviceTelemetryHistory,
} from '../vendor/telemetry-schemas.ts';

const DeviceParamsSchema = z.object({ deviceId: DeviceIdSchema });
const NoQuerySchema = z.strictObject({});

/**
 * Telemetry, energy, alarms and configuration (docs/upstream.md, Telemetry), at the vendor's
 * paths, computed from the sandbox's physical model on read (src/sandbox/README.md, Telemetry
 * model). Each counts against the device's rate limit like any device call; the batch read
 * `POST /devices/latestData/query` once per listed device, as a batch does.
 */
export async function telemetryRoutes(app: FastifyInstance, context: RegionContext): Promise<void> {
  const { state } = context;

  app.get('/devices/:deviceId/latestData', async (request): Promise<DeviceTelemetry> => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    parse(NoQuerySchema, request.query, 'query');
    return state.latestData(client, deviceId);
  });

  app.post('/devices/latestData/query', async (request): Promise<DeviceTelemetry[]> => {
    const client = authenticate(context, request);
    const body = parse(LatestDataRequestSchema, request.body, 'body');
    return state.latestDataOf(client, body);
  });

  app.get('/devices/:deviceId/historicalData', async (request): Promise<DeviceTelemetryHistory> => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    const query = parse(TelemetryHistoryQuerySchema, request.query, 'query');
    return state.telemetryHistory(client, deviceId, query);
  });

  app.get('/devices/:deviceId/energy', async (request): Promise<DeviceEnergyStatistics> => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    const query = parse(EnergyQuerySchema, request.query, 'query');
    return state.energy(client, deviceId, query);
  });

  app.get('/devices/:deviceId/alarms', async (request): Promise<AlarmList> => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    const query = parse(AlarmQuerySchema, request.query, 'query');
    return state.alarms(client, deviceId, query);
  });

  app.get('/devices/:deviceId/configuration', async (request): Promise<DeviceConfiguration> => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    parse(NoQuerySchema, request.query, 'query');
    return state.configuration(client, deviceId);
  });

  app.put('/devices/:deviceId/configuration', async (request): Promise<ConfigurationSetAnswer> => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    const update = parse(ConfigurationUpdateSchema, request.body, 'body');
    const { set, nowMs } = await state.setConfiguration(client, deviceId, update);
    return { message: 'configuration set', set, timestamp: new Date(nowMs).toISOString() };
  });
}
