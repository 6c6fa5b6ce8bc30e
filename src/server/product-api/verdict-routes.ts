import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { accountOf } from '#domain/account.ts';
import { eventVerdictsOf } from '#domain/fleet-power.ts';
import { BatchCommandIdSchema, DeviceIdSchema } from '#domain/ids.ts';
import { DeviceVerdictsAnswerSchema, EventVerdictsAnswerSchema } from '#domain/verdict-answer.ts';
import { requireBound } from './command-routes.ts';
import {
  COMMON_PROBLEMS,
  problemResponse,
  productRoutes,
  requireSession,
  sessionOf,
  tokenUse,
  type ProductApiDeps,
} from './declare.ts';

/** The most verdicts one answer holds; the newest first. */
export const MAX_VERDICTS_PER_ANSWER = 100;

const DeviceParamsSchema = z.strictObject({ deviceId: DeviceIdSchema });
const BatchParamsSchema = z.strictObject({ batchCommandId: BatchCommandIdSchema });
const VerdictsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_VERDICTS_PER_ANSWER).optional(),
});

/**
 * A device's verdicts (docs/verification.md), each with the samples of its window, answered from
 * the database: no browser read reaches the vendor (decision 007, section 3).
 */
export function verdictRoutes(app: FastifyInstance, deps: ProductApiDeps): void {
  const { sessions, readModel, verdicts, runningWindows } = deps;
  productRoutes(app).get(
    '/api/devices/:deviceId/verdicts',
    {
      config: tokenUse('read', 'device'),
      preValidation: requireSession(sessions, undefined, readModel),
      schema: {
        tags: ['commands'],
        summary: "A device's verdicts on its commands, newest window first",
        description:
          'One per device command whose window ended and whose telemetry was read: what the battery delivered against what was commanded, with the samples of the effective window as columns for a chart; and, in `running`, the windows running now that were read while an operator watched, judged so far. Answered from what the BFF already read.',
        params: DeviceParamsSchema,
        querystring: VerdictsQuerySchema,
        response: {
          200: DeviceVerdictsAnswerSchema,
          404: problemResponse(
            'The device is not found, or its site is not bound to this account (`unknown_or_unbound`).',
          ),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const { deviceId } = request.params;
      await requireBound(deps, session, deviceId);
      const running = await runningWindows.runningOf(session, deviceId);
      return {
        deviceId,
        verdicts: await verdicts.verdictsOf(
          accountOf(session),
          deviceId,
          request.query.limit ?? MAX_VERDICTS_PER_ANSWER,
        ),
        ...(running.length > 0 ? { running } : {}),
      };
    },
  );

  productRoutes(app).post(
    '/api/devices/:deviceId/watch',
    {
      config: tokenUse('read', 'device'),
      preValidation: requireSession(sessions, undefined, readModel),
      schema: {
        tags: ['commands'],
        summary: "An operator watches a device's running windows",
        description:
          "Its windows running now are read at most once every five minutes, inside the device's budget and after its changes and the read model's reads; the device's verdicts then answer each with its samples and its verdict so far (`running`). The device page sends it every minute while it shows a running window.",
        params: DeviceParamsSchema,
        response: {
          200: z.object({
            deviceId: DeviceIdSchema,
            /** The running windows whose next read came sooner. */
            windowsDue: z.number().int().min(0),
          }),
          404: problemResponse(
            'The device is not found, or its site is not bound to this account (`unknown_or_unbound`).',
          ),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const { deviceId } = request.params;
      await requireBound(deps, session, deviceId);
      return { deviceId, windowsDue: await runningWindows.watch(accountOf(session), deviceId) };
    },
  );

  productRoutes(app).get(
    '/api/batches/:batchCommandId/verdicts',
    {
      config: tokenUse('read', 'account'),
      preValidation: requireSession(sessions, undefined, readModel),
      schema: {
        tags: ['batches'],
        summary: "A batch's commanded against delivered power and each device's verdict",
        description:
          "From the verdicts the BFF keeps of the batch's device commands as the read model found them (docs/verification.md): the count of each verdict, the energies, one point per sampling period over the window, and each device's verdict. Answered from the database, no vendor call.",
        params: BatchParamsSchema,
        response: { 200: EventVerdictsAnswerSchema, ...COMMON_PROBLEMS },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const { knownCommands, records } = await verdicts.verdictsOfBatches(accountOf(session), [
        request.params.batchCommandId,
      ]);
      return eventVerdictsOf(records, knownCommands);
    },
  );
}
