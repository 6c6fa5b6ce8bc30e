import { IdempotencyKeyHeadersSchema } from '../http/idempotency-key.ts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  BatchCancelResponseSchema,
  BatchRequestSchema,
  BatchSubmissionResponseSchema,
} from '#domain/batch.ts';
import { BatchCommandIdSchema } from '#domain/ids.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { DeviceChangeQuerySchema, QueuedAnswerSchema } from '#domain/queued-change.ts';
import {
  COMMON_PROBLEMS,
  problemResponse,
  productRoutes,
  requireSession,
  sessionOf,
  tokenUse,
  type ProductApiDeps,
} from './declare.ts';

const BatchParamsSchema = z.strictObject({ batchCommandId: BatchCommandIdSchema });

/**
 * Batches (docs/decisions/006, sections 3 and 5): one command to up to 50 devices, answered with
 * the device commands found so far in their histories and the devices not confirmed yet (the
 * ledger's entry follows the search); and the batch cancel, one result per device.
 */
export function batchRoutes(app: FastifyInstance, deps: ProductApiDeps): void {
  // A batch takes a call of each of its devices' budgets, all or none, or is queued.
  const { sessions, writePath, readModel } = deps;
  const routes = productRoutes(app);

  routes.post(
    '/api/batches',
    {
      config: tokenUse('dispatch', 'account'),
      preValidation: requireSession(sessions, 'dispatch', readModel),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags: ['batches'],
        summary: 'Send one device command to up to 50 devices',
        description:
          "Takes a call of every device's budget, all or none: queued and answered 202 `{ queued: ... }` when one has none left now, or with `ifLater=refuse` refused 409 `change_would_wait` (`details.goesAt`), nothing sent or queued.",
        querystring: DeviceChangeQuerySchema,
        body: BatchRequestSchema,
        response: {
          202: z.union([BatchSubmissionResponseSchema, QueuedAnswerSchema]),
          404: problemResponse('A device is not found or not bound (`unknown_or_unbound`).'),
          409: problemResponse(
            "The window overlaps a command of a device (`window_overlap`), the budget cannot send it before the window's lead time (`budget_too_tight`), or `ifLater=refuse` and it would wait (`change_would_wait`).",
          ),
          422: problemResponse(
            "A value outside a device's range (`capability_out_of_range`), or a window that has already ended (`window_ended`, nothing sent).",
          ),
          429: problemResponse('A device is rate limited (`device_rate_limited`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      return writePath.single(
        request,
        reply,
        session,
        { call: 'batch', batch: request.body },
        request.query.ifLater,
      );
    },
  );
  refuseOtherMethods(app, '/api/batches', new Set(['POST']));

  routes.put(
    '/api/batches/:batchCommandId/cancel',
    {
      config: tokenUse('dispatch', 'account'),
      preValidation: requireSession(sessions, 'dispatch', readModel),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags: ['batches'],
        summary: "Cancel a batch's commands that are waiting or running",
        params: BatchParamsSchema,
        querystring: DeviceChangeQuerySchema,
        response: {
          200: BatchCancelResponseSchema,
          202: QueuedAnswerSchema,
          404: problemResponse('No such batch (`unknown_or_unbound`).'),
          409: problemResponse(
            'Every command of the batch has finished (`batch_not_cancellable`), a cancel of the batch is queued already (`change_already_queued`, `details.goesAt`: withdraw it first), or `ifLater=refuse` and it would wait (`change_would_wait`).',
          ),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { batchCommandId } = request.params;
      return writePath.single(
        request,
        reply,
        session,
        { call: 'batchCancel', batchCommandId },
        request.query.ifLater,
      );
    },
  );
  refuseOtherMethods(app, '/api/batches/:batchCommandId/cancel', new Set(['PUT']));
}
