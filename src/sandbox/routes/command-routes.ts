import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { toStatusRecord } from '../model/command-entity.ts';
import { parse } from '../http/parse.ts';
import { authenticate, type RegionContext } from '../http/region-context.ts';
import {
  CommandIdSchema,
  CommandRequestSchema,
  DeviceIdSchema,
  HistoryQuerySchema,
  type CancelAnswer,
  type HistoryPage,
  type StatusRecord,
  type SubmissionAnswer,
} from '../vendor/schemas.ts';

const DeviceParamsSchema = z.object({ deviceId: DeviceIdSchema });
const CommandParamsSchema = z.object({ deviceId: DeviceIdSchema, commandId: CommandIdSchema });

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Single device commands (docs/upstream.md, Commands, Status record, History): submit and history
 * on the singular `/device/{deviceId}/commands`, status and cancel on the plural `/devices/`.
 */
export async function commandRoutes(app: FastifyInstance, context: RegionContext): Promise<void> {
  const { state, dialect } = context;

  app.post('/device/:deviceId/commands', async (request, reply) => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    const command = parse(CommandRequestSchema, request.body, 'body');
    const accepted = await state.submit(client, deviceId, command);
    const body: SubmissionAnswer = {
      id: accepted.id,
      message: `Command received for device ${deviceId}; poll GET /devices/${deviceId}/commands/${accepted.id} for its status`,
      timestamp: iso(accepted.receivedAtMs),
    };
    return reply.code(202).send(body);
  });

  app.get('/device/:deviceId/commands', async (request): Promise<HistoryPage> => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    const query = parse(HistoryQuerySchema, request.query, 'query');
    const { total, commands } = await state.history(client, deviceId, query);
    const { reasonField } = dialect.current;
    return {
      deviceId,
      total,
      page: query.page,
      size: query.size,
      commands: commands.map((command) => toStatusRecord(command, reasonField)),
    };
  });

  app.get('/devices/:deviceId/commands/:commandId', async (request): Promise<StatusRecord> => {
    const client = authenticate(context, request);
    const { deviceId, commandId } = parse(CommandParamsSchema, request.params, 'path');
    const command = await state.status(client, deviceId, commandId);
    return toStatusRecord(command, dialect.current.reasonField);
  });

  app.put(
    '/devices/:deviceId/commands/:commandId/cancel',
    async (request): Promise<CancelAnswer> => {
      const client = authenticate(context, request);
      const { deviceId, commandId } = parse(CommandParamsSchema, request.params, 'path');
      const cancelled = await state.cancel(client, deviceId, commandId);
      return {
        message: 'Command cancelled',
        commandId: cancelled.id,
        timestamp: iso(cancelled.cancelledAtMs ?? state.nowMs()),
      };
    },
  );
}
