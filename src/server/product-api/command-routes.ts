import { IdempotencyKeyHeadersSchema } from '../http/idempotency-key.ts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  CommandCancellationSchema,
  DeviceCommandSchema,
  SubmissionResponseSchema,
} from '#domain/command.ts';
import { HistoryQuerySchema, HistoryResponseSchema } from '#domain/history.ts';
import { CommandIdSchema, DeviceIdSchema } from '#domain/ids.ts';
import { CommandStatusResponseSchema } from '#domain/read-model.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { DeviceChangeQuerySchema, QueuedAnswerSchema } from '#domain/queued-change.ts';
import { accountOf } from '#domain/account.ts';
import { ProblemError } from '../http/problem.ts';
import type { Session } from '../session/session-store.ts';
import {
  COMMON_PROBLEMS,
  precompiledSerializerCompiler,
  problemResponse,
  productRoutes,
  requireSession,
  sessionOf,
  tokenUse,
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
 * status and a cancel. History and status are answered from the read model (docs/architecture.md,
 * Read model): no browser read reaches the vendor.
 */
export function commandRoutes(app: FastifyInstance, deps: ProductApiDeps): void {
  // Changes go through their device's budget of upstream calls.
  const { sessions, ledger, writePath, readModel } = deps;
  const routes = productRoutes(app);
  const reader = requireSession(sessions, undefined, readModel);

  routes.get(
    '/api/devices/:deviceId/commands',
    {
      config: tokenUse('read', 'device'),
      preValidation: reader,
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
      const account = accountOf(session);
      await requireBound(deps, session, deviceId);
      const { startTime, endTime, status } = request.query;
      const view = await readModel.history(
        account,
        deviceId,
        { startMs: Date.parse(startTime), endMs: Date.parse(endTime) },
        status,
      );
      const { version, readAt, historyPending } = view;
      // Commands found for a batch before the read model existed: the ledger names it.
      const commands = await ledger.withBatches(session, deviceId, view.commands);
      return {
        commands,
        version,
        ...(readAt ? { readAt } : {}),
        ...(historyPending ? { historyPending } : {}),
      };
    },
  );

  routes.post(
    '/api/devices/:deviceId/commands',
    {
      config: tokenUse('dispatch', 'device'),
      preValidation: requireSession(sessions, 'dispatch', readModel),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags: ['commands'],
        summary: 'Send a device command',
        description:
          "Goes through the device's budget of upstream calls (the vendor's 2 per rolling minute unless the region is configured otherwise; `GET /api/session` says the budget in force): when it has no call left now, or the vendor answers 429, the submission is queued and answered 202 `{ queued: { changeId, goesAt, reason, deviceIds } }` instead of the command (follow it at `GET /api/changes`); with `ifLater=refuse` it is neither queued nor sent: 409 `change_would_wait` with `details.goesAt`. `Powerdeck-Device-Version` names the device's version the change was made against.",
        params: DeviceParamsSchema,
        querystring: DeviceChangeQuerySchema,
        body: DeviceCommandSchema,
        response: {
          202: z.union([SubmissionResponseSchema, QueuedAnswerSchema]),
          404: NOT_FOUND,
          409: problemResponse(
            "The window overlaps another command (`window_overlap`: refused before anything is sent or queued when the read model knows that command, which `details` then names), an earlier try is still settling, another person changed the device since the version named (`device_changed`), the budget cannot send it before the window's lead time (`budget_too_tight`), or `ifLater=refuse` and it would wait (`change_would_wait`, `details.goesAt`).",
          ),
          422: problemResponse(
            "A value outside the device's range (`capability_out_of_range`), a control it lacks (`control_not_supported`), a window that has already ended (`window_ended`, nothing sent), or a reused Idempotency-Key.",
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
      return writePath.single(
        request,
        reply,
        session,
        { call: 'submit', deviceId, command },
        request.query.ifLater,
      );
    },
  );
  refuseOtherMethods(app, '/api/devices/:deviceId/commands', new Set(['GET', 'HEAD', 'POST']));

  routes.get(
    '/api/devices/:deviceId/commands/:commandId',
    {
      config: tokenUse('read', 'device'),
      preValidation: reader,
      // Polled by every open tab: its answer's serializer is compiled once.
      serializerCompiler: precompiledSerializerCompiler,
      schema: {
        tags: ['commands'],
        summary: "A command's status record, with where its device stands",
        params: CommandParamsSchema,
        response: {
          200: CommandStatusResponseSchema,
          404: NOT_FOUND,
          429: RATE_LIMITED,
          ...COMMON_PROBLEMS,
        },
      },
    },
    // Polled by every open tab: from the read model, never the vendor.
    async (request) => {
      const session = sessionOf(request);
      const ref = request.params;
      // One binding check before either answer: a record the read model holds of a device whose
      // site was unbound is no more the client's to read than a command it never held.
      await requireBound(deps, session, ref.deviceId);
      const account = accountOf(session);
      const known = await readModel.status(account, ref.deviceId, ref.commandId);
      if (known) return { ...known.record, device: known.device };
      // Not known yet: the device's first read is still to come.
      throw unknownCommand(ref.deviceId);
    },
  );
  refuseOtherMethods(app, '/api/devices/:deviceId/commands/:commandId', new Set(['GET', 'HEAD']));

  routes.put(
    '/api/devices/:deviceId/commands/:commandId/cancel',
    {
      config: tokenUse('dispatch', 'device'),
      preValidation: requireSession(sessions, 'dispatch', readModel),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags: ['commands'],
        summary: 'Cancel a command that is waiting or running',
        description:
          "Goes through the device's budget of upstream calls: queued and answered 202 `{ queued: ... }` when it cannot go now, or with `ifLater=refuse` refused 409 `change_would_wait` (`details.goesAt`), nothing sent or queued.",
        params: CommandParamsSchema,
        querystring: DeviceChangeQuerySchema,
        response: {
          200: CommandCancellationSchema,
          202: QueuedAnswerSchema,
          404: NOT_FOUND,
          409: problemResponse(
            'The command has finished (`not_cancellable`), another person changed the device since the version named (`device_changed`), a queued change will cancel the command already (`change_already_queued`, `details.goesAt`: withdraw it first), or `ifLater=refuse` and it would wait (`change_would_wait`).',
          ),
          429: RATE_LIMITED,
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
        { call: 'cancel', ...request.params },
        request.query.ifLater,
      );
    },
  );
  refuseOtherMethods(app, '/api/devices/:deviceId/commands/:commandId/cancel', new Set(['PUT']));
}

/**
 * Checks that `deviceId` is on one of the session's bound sites as the read model knows it (from
 * memory: status polls ask it every time); a device it does not know as bound (bound before it
 * existed, or bound again outside powerdeck) is looked up in the site list (kept 30 s, forgotten
 * at an unbind) and adopted: its first read is planned. After an unbind nothing of the site's
 * devices is answered (docs/security.md, Unbinding; the vendor's spec, section 4).
 *
 * @throws ProblemError 404 `unknown_or_unbound` when no bound site holds it.
 */
/**
 * Refuses a device no bound site of the account holds (404 `unknown_or_unbound`), asking the site
 * list (not a device call) when the read model does not know the device yet.
 */
export async function requireBound(
  deps: Pick<ProductApiDeps, 'readModel' | 'sites'>,
  session: Session,
  deviceId: string,
): Promise<void> {
  const { readModel, sites } = deps;
  const account = accountOf(session);
  if (await readModel.isBound(account, deviceId)) return;
  const { siteId } = await sites.siteOf(session, [deviceId]);
  if (!siteId) throw unknownCommand(deviceId);
  await readModel.adoptDevice(account, deviceId, siteId);
}

/** The 404 for a device or command no bound site of the account holds, in the vendor's words. */
function unknownCommand(deviceId: string): ProblemError {
  return new ProblemError(
    404,
    'unknown_or_unbound',
    `${deviceId} or this command was not found, or its site is not bound to this account. Check the device; if its site was unbound, bind it again on the sites page.`,
  );
}
