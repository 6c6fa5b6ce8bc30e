import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  CommandCancellationSchema,
  DeviceCommandSchema,
  StatusRecordSchema,
  SubmissionResponseSchema,
  type CommandCancellation,
} from '../../domain/command.ts';
import { HistoryQuerySchema, HistoryResponseSchema } from '../../domain/history.ts';
import { CommandIdSchema, DeviceIdSchema } from '../../domain/ids.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { QueuedAnswerSchema } from '../../domain/queued-change.ts';
import { answerBudgetedChange } from './write-path.ts';
import {
  COMMON_PROBLEMS,
  problemResponse,
  productRoutes,
  requireSession,
  sessionOf,
  type ProductApiDeps,
} from './declare.ts';

const DeviceParamsSchema = z.strictObject({ deviceId: DeviceIdSchema });
const CommandParamsSchema = z.strictObject({
  deviceId: DeviceIdSchema,
  commandId: CommandIdSchema,
});

const NOT_FOUND = problemResponse(
  'The device or command is not found, or its site is not bound to this account (`unknown_or_unbound`).',
);
const RATE_LIMITED = problemResponse(
  "The device's calls are used up for now (`device_rate_limited`); `Retry-After` says when it takes the next.",
);

/**
 * A device's commands (docs/decisions/006, section 3): its history, a submission, a command's
 * status (shared between identical polls, final ones kept) and a cancel.
 */
export function commandRoutes(app: FastifyInstance, deps: ProductApiDeps): void {
  const { sessions, upstream, ledger, statuses } = deps;
  // Changes go through their device's budget of upstream calls when the BFF has one.
  const changes = { ledger, writePath: deps.writePath };
  const routes = productRoutes(app);

  routes.get(
    '/api/devices/:deviceId/commands',
    {
      preValidation: requireSession(sessions),
      schema: {
        tags: ['commands'],
        summary: "A device's commands whose window meets the range (at most 30 days)",
        params: DeviceParamsSchema,
        querystring: HistoryQuerySchema,
        response: {
          200: HistoryResponseSchema,
          404: NOT_FOUND,
          429: RATE_LIMITED,
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const { deviceId } = request.params;
      const commands = await upstream.history(session, deviceId, request.query, request.id);
      // The batch each command was sent in, as far as the ledger found them.
      return {
        commands: ledger ? await ledger.withBatches(session, deviceId, commands) : commands,
      };
    },
  );

  routes.post(
    '/api/devices/:deviceId/commands',
    {
      preValidation: requireSession(sessions, 'dispatch'),
      schema: {
        tags: ['commands'],
        summary: 'Send a device command',
        description:
          "Goes through the device's budget of upstream calls (2 per rolling minute): when it has no call left now, or the vendor answers 429, the submission is queued and answered 202 `{ queued: { changeId, goesAt, reason, deviceIds } }` instead of the command (follow it at `GET /api/changes`). `Powerdeck-Device-Version` names the device's version the change was made against.",
        params: DeviceParamsSchema,
        body: DeviceCommandSchema,
        response: {
          202: z.union([SubmissionResponseSchema, QueuedAnswerSchema]),
          404: NOT_FOUND,
          409: problemResponse(
            "The window overlaps another command (`window_overlap`), an earlier try is still settling, another person changed the device since the version named (`device_changed`), or the budget cannot send it before the window's lead time (`budget_too_tight`).",
          ),
          422: problemResponse(
            "A value outside the device's range (`capability_out_of_range`), a control it lacks (`control_not_supported`), or a reused Idempotency-Key.",
          ),
          429: RATE_LIMITED,
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { deviceId } = request.params;
      const command = request.body;
      return answerBudgetedChange(changes, request, reply, {
        kind: 'submit',
        session,
        deviceId,
        command,
        send: () => upstream.submit(session, deviceId, command, request.id),
      });
    },
  );
  refuseOtherMethods(app, '/api/devices/:deviceId/commands', new Set(['GET', 'HEAD', 'POST']));

  routes.get(
    '/api/devices/:deviceId/commands/:commandId',
    {
      preValidation: requireSession(sessions),
      schema: {
        tags: ['commands'],
        summary: "A command's status record",
        params: CommandParamsSchema,
        response: {
          200: StatusRecordSchema,
          404: NOT_FOUND,
          429: RATE_LIMITED,
          ...COMMON_PROBLEMS,
        },
      },
    },
    // Polled by every open tab: identical reads share one upstream call, final records are kept.
    async (request) => {
      const session = sessionOf(request);
      const ref = request.params;
      return statuses.fetch(session, ref, () => upstream.status(session, ref));
    },
  );
  refuseOtherMethods(app, '/api/devices/:deviceId/commands/:commandId', new Set(['GET', 'HEAD']));

  routes.put(
    '/api/devices/:deviceId/commands/:commandId/cancel',
    {
      preValidation: requireSession(sessions, 'dispatch'),
      schema: {
        tags: ['commands'],
        summary: 'Cancel a command that is waiting or running',
        description:
          "Goes through the device's budget of upstream calls: queued and answered 202 `{ queued: ... }` when it cannot go now.",
        params: CommandParamsSchema,
        response: {
          200: CommandCancellationSchema,
          202: QueuedAnswerSchema,
          404: NOT_FOUND,
          409: problemResponse(
            'The command has finished (`not_cancellable`), or another person changed the device since the version named (`device_changed`).',
          ),
          429: RATE_LIMITED,
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const ref = request.params;
      return answerBudgetedChange(
        changes,
        request,
        reply,
        {
          kind: 'cancel',
          session,
          ...ref,
          send: () => upstream.cancel(session, ref, request.id),
        },
        // Polls see the cancelled record from now on, never the old one.
        (body) => {
          const cancellation = CommandCancellationSchema.safeParse(body);
          if (cancellation.success)
            return statuses.afterCancel(session, cancellation.data satisfies CommandCancellation);
          statuses.forget(session, ref);
        },
      );
    },
  );
  refuseOtherMethods(app, '/api/devices/:deviceId/commands/:commandId/cancel', new Set(['PUT']));
}
