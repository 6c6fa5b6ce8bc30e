import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  DeviceCommandSchema,
  type StatusRecord,
  type SubmissionResponse,
} from '../../domain/command.ts';
import { HistoryQuerySchema, type HistoryResponse } from '../../domain/history.ts';
import { CommandIdSchema, DeviceIdSchema } from '../../domain/ids.ts';
import { toStatusRecord } from '../model/command-entity.ts';
import { parse } from '../http/parse.ts';
import { authenticate, type RegionContext } from '../http/region-context.ts';

const DeviceParamsSchema = z.object({ deviceId: DeviceIdSchema });
const CommandParamsSchema = z.object({ deviceId: DeviceIdSchema, commandId: CommandIdSchema });

/**
 * Single device commands (spec 4): submit (`POST /device/{deviceId}/commands`, singular as the spec
 * shows), status, cancel, and history (path and parameters docs/architecture.md, Upstream
 * contract).
 */
export async function commandRoutes(app: FastifyInstance, context: RegionContext): Promise<void> {
  app.post('/device/:deviceId/commands', async (request, reply) => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    const command = parse(DeviceCommandSchema, request.body, 'body');
    const accepted = await context.state.submit(client, deviceId, command);
    const body: SubmissionResponse = {
      id: accepted.id,
      message: `Command accepted for device ${deviceId}; poll GET /devices/${deviceId}/commands/${accepted.id} for its status`,
      timestamp: new Date(accepted.receivedAtMs).toISOString(),
    };
    return reply.code(202).send(body);
  });

  app.get('/devices/:deviceId/commands', async (request): Promise<HistoryResponse> => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    const query = parse(HistoryQuerySchema, request.query, 'query');
    const commands = await context.state.history(client, deviceId, query);
    return { commands: commands.map(toStatusRecord) };
  });

  app.get('/devices/:deviceId/commands/:commandId', async (request): Promise<StatusRecord> => {
    const client = authenticate(context, request);
    const { deviceId, commandId } = parse(CommandParamsSchema, request.params, 'path');
    return toStatusRecord(await context.state.status(client, deviceId, commandId));
  });

  app.put(
    '/devices/:deviceId/commands/:commandId/cancel',
    async (request): Promise<StatusRecord> => {
      const client = authenticate(context, request);
      const { deviceId, commandId } = parse(CommandParamsSchema, request.params, 'path');
      return toStatusRecord(await context.state.cancel(client, deviceId, commandId));
    },
  );
}
