import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parse } from '../http/parse.ts';
import { authenticate, type RegionContext } from '../http/region-context.ts';
import { rateLimitedWords } from '../state/batch-commands.ts';
import {
  BatchCommandIdSchema,
  BatchRequestSchema,
  type BatchAccepted,
  type BatchCancelAnswer,
} from '../vendor/schemas.ts';

const BatchParamsSchema = z.object({ batchCommandId: BatchCommandIdSchema });

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Batch commands (docs/upstream.md, Batches): submit to at most 50 devices, answered with the
 * batch ID only (its message names the devices left out under the rate limit), and cancel with
 * one result per device.
 */
export async function batchRoutes(app: FastifyInstance, context: RegionContext): Promise<void> {
  app.post('/devices/commands', async (request, reply) => {
    const client = authenticate(context, request);
    const batchRequest = parse(BatchRequestSchema, request.body, 'body');
    const { batch, commands, rateLimited } = await context.state.submitBatch(client, batchRequest);
    const overlapping = commands
      .filter((command) => command.status === 'cancelled')
      .map((command) => command.deviceId);
    // The vendor's answer has no per-device results: a device left out under the rate limit is
    // named here, as an overlapping one is (docs/upstream.md, Rate limit).
    const body: BatchAccepted = {
      batchCommandId: batch.id,
      message:
        `Batch command received for ${commands.length} devices` +
        (overlapping.length > 0
          ? `; cancelled at once because their windows overlap (timeWindowOverlap): ${overlapping.join(', ')}`
          : '') +
        (rateLimited.length > 0
          ? `; not sent, over the rate limit: ${rateLimited.map((device) => rateLimitedWords(context.state.deviceCalls, device, batch.createdAtMs)).join(', ')}`
          : ''),
      timestamp: iso(batch.createdAtMs),
    };
    return reply.code(202).send(body);
  });

  app.put(
    '/devices/commands/:batchCommandId/cancel',
    async (request): Promise<BatchCancelAnswer> => {
      const client = authenticate(context, request);
      const { batchCommandId } = parse(BatchParamsSchema, request.params, 'path');
      const outcome = await context.state.cancelBatch(client, batchCommandId);
      return {
        message: `Batch command cancelled: ${outcome.cancelledCount} of ${outcome.results.length} commands cancelled`,
        batchCommandId: outcome.batchCommandId,
        results: outcome.results,
        timestamp: iso(outcome.nowMs),
      };
    },
  );
}
