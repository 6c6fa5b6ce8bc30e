import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { BatchCancelResponseSchema, BatchRequestSchema } from '../../../domain/batch.ts';
import { BatchCommandIdSchema } from '../../../domain/ids.ts';
import { parseInput } from '../../http/parse.ts';
import { UPSTREAM_PATHS } from '../../upstream/upstream-api.ts';
import { answerChange, mirrorPath, type ProxyDeps } from '../allowlist.ts';

const BatchParamsSchema = z.strictObject({ batchCommandId: BatchCommandIdSchema });

/**
 * Batch submission and batch cancel (paths docs/architecture.md, Upstream contract: Batch, Batch
 * cancel), mirrored under `/api`.
 */
export function batchRoutes(app: FastifyInstance, deps: ProxyDeps): void {
  const { sessions, upstream, statuses } = deps;

  mirrorPath(app, '/api/devices/commands/batch', {
    POST: async (request, reply) => {
      const session = await sessions.require(request, 'dispatch');
      const batch = parseInput(BatchRequestSchema, request.body, 'body');
      return answerChange(deps, request, reply, {
        kind: 'batch',
        session,
        batch,
        send: () => upstream.batch(session, batch, request.id),
      });
    },
  });

  mirrorPath(app, '/api/devices/commands/batch/:batchCommandId/cancel', {
    PUT: async (request, reply) => {
      const session = await sessions.require(request, 'dispatch');
      const { batchCommandId } = parseInput(BatchParamsSchema, request.params, 'path');
      return answerChange(
        deps,
        request,
        reply,
        {
          kind: 'batchCancel',
          session,
          batchCommandId,
          send: () => upstream.batchCancel(session, batchCommandId, request.id),
        },
        // Statuses of the batch's commands changed: polls ask the upstream again.
        (body) => {
          const parsed = BatchCancelResponseSchema.safeParse(body);
          if (!parsed.success) return;
          for (const result of parsed.data.results)
            statuses.forget(session, UPSTREAM_PATHS.status(result));
        },
      );
    },
  });
}
