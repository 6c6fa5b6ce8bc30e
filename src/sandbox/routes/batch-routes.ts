import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  BatchRequestSchema,
  type BatchCancelResponse,
  type BatchSubmissionResponse,
} from '../../domain/batch.ts';
import { BatchCommandIdSchema } from '../../domain/ids.ts';
import { parse } from '../http/parse.ts';
import { authenticate, type RegionContext } from '../http/region-context.ts';

const BatchParamsSchema = z.object({ batchCommandId: BatchCommandIdSchema });

/**
 * Batch commands (spec 2.5, 4; paths and shapes docs/architecture.md, Upstream contract: Batch):
 * submit to at most 50 devices, all or nothing, and cancel with one result per device.
 */
export async function batchRoutes(app: FastifyInstance, context: RegionContext): Promise<void> {
  app.post('/devices/commands/batch', async (request, reply) => {
    const client = authenticate(context, request);
    const batchRequest = parse(BatchRequestSchema, request.body, 'body');
    const { batch, commands } = await context.state.submitBatch(client, batchRequest);
    const overlapping = commands.filter((command) => command.status === 'cancelled').length;
    const body: BatchSubmissionResponse = {
      batchCommandId: batch.id,
      message:
        `Batch accepted for ${commands.length} devices` +
        (overlapping > 0
          ? `; ${overlapping} cancelled at once because their windows overlap (timeWindowOverlap)`
          : ''),
      timestamp: new Date(batch.createdAtMs).toISOString(),
      commands: commands.map((command) => ({ deviceId: command.deviceId, id: command.id })),
    };
    return reply.code(202).send(body);
  });

  app.put(
    '/devices/commands/batch/:batchCommandId/cancel',
    async (request): Promise<BatchCancelResponse> => {
      const client = authenticate(context, request);
      const { batchCommandId } = parse(BatchParamsSchema, request.params, 'path');
      return context.state.cancelBatch(client, batchCommandId);
    },
  );
}
