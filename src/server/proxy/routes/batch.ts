import { z } from 'zod';
import { BatchCancelResponseSchema, BatchRequestSchema } from '../../../domain/batch.ts';
import { BatchCommandIdSchema } from '../../../domain/ids.ts';
import { LEDGER_SPECS } from '../../ledger/ledger-specs.ts';
import { UPSTREAM_PATHS } from '../../upstream/upstream-api.ts';
import { mirrored } from '../mirror.ts';

/** Batch submission and batch cancel (paths DESIGN.md 3), mirrored under `/api`. */
export const batchRoutes = [
  mirrored({
    method: 'POST',
    path: '/api/devices/commands/batch',
    body: BatchRequestSchema,
    upstream: () => ({ path: UPSTREAM_PATHS.batch }),
    ledger: LEDGER_SPECS.batch,
  }),
  mirrored({
    method: 'PUT',
    path: '/api/devices/commands/batch/:batchCommandId/cancel',
    params: z.strictObject({ batchCommandId: BatchCommandIdSchema }),
    upstream: ({ params }) => ({ path: UPSTREAM_PATHS.batchCancel(params.batchCommandId) }),
    ledger: LEDGER_SPECS.batchCancel,
    // Statuses of the batch's commands changed: polls ask the upstream again, not a reused answer.
    afterSuccess: (statuses, { session }, body) => {
      const parsed = BatchCancelResponseSchema.safeParse(body);
      if (!parsed.success) return;
      for (const result of parsed.data.results)
        statuses.forget(session, UPSTREAM_PATHS.status(result));
    },
  }),
];
