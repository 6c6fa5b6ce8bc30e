import { IdempotencyKeyHeadersSchema } from '../http/idempotency-key.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DeviceIdSchema } from '#domain/ids.ts';
import {
  DeviceChangeAnswerSchema,
  DeviceChangeQuerySchema,
  DeviceChangeRequestSchema,
  QueuedChangePageSchema,
  QueuedChangeQuerySchema,
  QueuedChangeStatusSchema,
  type QueuedChangePage,
  type QueuedChangeStatus,
} from '#domain/queued-change.ts';
import { accountOf, actorName, authorOf, personOf } from '#domain/account.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { ProblemError } from '../http/problem.ts';
import type { Session } from '../session/session-store.ts';
import {
  COMMON_PROBLEMS,
  problemResponse,
  productRoutes,
  requireSession,
  sessionOf,
  tokenUse,
  type ProductApiDeps,
} from './declare.ts';
import { notificationChangeOf } from './change-events.ts';

const DeviceParamsSchema = z.strictObject({ deviceId: DeviceIdSchema });
const ChangeParamsSchema = z.strictObject({ changeId: z.uuid() });
const WithdrawnSchema = z.object({ change: QueuedChangeStatusSchema });

/**
 * The write path's own routes (docs/decisions/007-device-call-budget.md, sections 2 and 5;
 * docs/architecture.md, BFF surface):
 * - `POST /api/devices/{deviceId}/changes`: a replace or an undo planned as a whole with the
 *   device's budget before its first call (refused 409 `budget_too_tight` with the earliest start
 *   the budget allows, else sent now or queued, its steps in order, each its own ledger entry);
 * - `GET /api/changes` (and one by ID): the account's waiting and recent queued changes;
 * - `DELETE /api/changes/{changeId}`: withdraws a change until its first step starts.
 */
export function changeRoutes(app: FastifyInstance, deps: ProductApiDeps): void {
  const { sessions, writePath } = deps;
  const routes = productRoutes(app);

  routes.post(
    '/api/devices/:deviceId/changes',
    {
      config: tokenUse('dispatch', 'device'),
      preValidation: requireSession(sessions, 'dispatch'),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags: ['changes'],
        summary: "A replace or an undo of a device's command, planned as a whole",
        description:
          "Every step (a cancel, a submission) gets its slot of the device's budget of upstream calls (the vendor's 2 per rolling minute unless the region is configured otherwise; `GET /api/session` says the budget in force) before the first is sent. When the last would go later than the lead time (2 minutes) before the new window starts, nothing is sent: 409 `budget_too_tight` with `details.earliestStart`. Else the change is sent now (200 once every step was sent, `cancelled` and `submitted` from their answers) or queued (202 with `queued.goesAt`); with `ifLater=refuse` a change that would wait is neither queued nor sent: 409 `change_would_wait` with `details.goesAt`, for a screen to ask first. Each step is its own ledger entry under `Idempotency-Key` + `/1`, `/2` (one step: the key itself); an undo's steps name `undoOf`. `Powerdeck-Device-Version` names the device's version the change was made against.",
        params: DeviceParamsSchema,
        querystring: DeviceChangeQuerySchema,
        body: DeviceChangeRequestSchema,
        response: {
          200: DeviceChangeAnswerSchema,
          202: DeviceChangeAnswerSchema,
          404: problemResponse('The device or command is not found (`unknown_or_unbound`).'),
          409: problemResponse(
            "The budget cannot send it before the window's lead time (`budget_too_tight`); another person changed the device since the version named (`device_changed`); `ifLater=refuse` and it would wait (`change_would_wait`, `details.goesAt`); the first step was sent and the second refused (`change_incomplete`); a queued change will cancel the command already (`change_already_queued`, `details.goesAt`: withdraw it first); or a step was refused (`window_overlap`, `not_cancellable`).",
          ),
          422: problemResponse(
            "A value outside the device's range (`capability_out_of_range`), a window that has already ended (`window_ended`, nothing sent or queued), or a reused Idempotency-Key.",
          ),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) =>
      writePath.planned(
        request,
        reply,
        sessionOf(request),
        request.params.deviceId,
        request.body,
        request.query.ifLater,
      ),
  );
  // GET and HEAD stay with the device's commands; this path takes changes only.
  refuseOtherMethods(app, '/api/devices/:deviceId/changes', new Set(['POST']));

  routes.get(
    '/api/changes',
    {
      config: tokenUse('read', 'account'),
      preValidation: requireSession(sessions),
      schema: {
        tags: ['changes'],
        summary: "The account's queued changes, newest first",
        description:
          "Changes that waited or wait for their devices' budget of upstream calls: what (kind and steps, with the command or the command cancelled), which devices, when the next step goes (`goesAt`), their state, who made them. `waiting=true` lists those still queued or being sent.",
        querystring: QueuedChangeQuerySchema,
        response: { 200: QueuedChangePageSchema, ...COMMON_PROBLEMS },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const { waiting, deviceId, limit } = request.query;
      const changes = await writePath.queue.list(session, {
        ...(waiting === 'true' ? { waiting: true } : {}),
        ...(deviceId ? { deviceId } : {}),
        ...(limit ? { limit } : {}),
      });
      return { changes } satisfies QueuedChangePage;
    },
  );
  refuseOtherMethods(app, '/api/changes', new Set(['GET', 'HEAD']));

  routes.get(
    '/api/changes/:changeId',
    {
      config: tokenUse('read', 'account'),
      preValidation: requireSession(sessions),
      schema: {
        tags: ['changes'],
        summary: 'One queued change',
        params: ChangeParamsSchema,
        response: {
          200: QueuedChangeStatusSchema,
          404: problemResponse('No such change (`change_not_found`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const status = await writePath.queue.status(sessionOf(request), request.params.changeId);
      if (!status) throw notFound();
      return status;
    },
  );

  routes.delete(
    '/api/changes/:changeId',
    {
      config: tokenUse('dispatch', 'account'),
      preValidation: requireSession(sessions, 'dispatch'),
      schema: {
        tags: ['changes'],
        summary: 'Withdraw a queued change before it is sent',
        description:
          'Possible until its first step starts; 409 `change_not_withdrawable` once it has (the change as it stands in `details.change`). The person who made it is told when someone else withdrew it.',
        params: ChangeParamsSchema,
        response: {
          200: WithdrawnSchema,
          404: problemResponse('No such change (`change_not_found`).'),
          409: problemResponse('It has started sending, or has ended (`change_not_withdrawable`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const { changeId } = request.params;
      const name = actorName(session);
      const { withdrawn, status } = await writePath.queue.withdraw(
        session,
        changeId,
        `Withdrawn${name ? ` by ${name}` : ''} before it was sent; nothing was sent.`,
      );
      if (!status) throw notFound();
      if (!withdrawn) throw notWithdrawable(status);
      await notifyWithdrawn(deps, request, session, status);
      return { change: status };
    },
  );
  refuseOtherMethods(app, '/api/changes/:changeId', new Set(['GET', 'HEAD', 'DELETE']));
}

/** Tells the person who made a change that `session`'s person withdrew it (not themselves). */
async function notifyWithdrawn(
  deps: ProductApiDeps,
  request: FastifyRequest,
  session: Session,
  status: QueuedChangeStatus,
): Promise<void> {
  const row = await deps.writePath.queue.row(session, status.id);
  if (!row) return;
  const subject = notificationChangeOf(row.change);
  try {
    await deps.notifications.notify({
      account: accountOf(session),
      kind: 'queuedChangeWithdrawn',
      ...subject,
      reason: 'operator',
      madeBy: personOf(row.owner),
      withdrawnBy: authorOf(session),
    });
  } catch (error) {
    // The change is withdrawn; a notification that could not be written is logged, not refused.
    request.log.warn(
      { changeId: status.id, reason: error instanceof Error ? error.message : String(error) },
      'queued change withdrawn, but its notification could not be written',
    );
  }
}

function notFound(): ProblemError {
  return new ProblemError(
    404,
    'change_not_found',
    "This queued change is not among your account's changes. Reload the page to see the changes waiting.",
  );
}

function notWithdrawable(status: QueuedChangeStatus): ProblemError {
  const words: Record<QueuedChangeStatus['state'], string> = {
    queued: 'It is waiting.',
    sending:
      'It has started sending, so it can no longer be withdrawn: a change half sent would leave the device half changed. It goes on; undo it once it is sent if it must not stay.',
    sent: 'It was sent already, so there is nothing to withdraw. Undo it, or cancel its command, if it must not stay.',
    failed: 'It ended without being sent in full; there is nothing left to withdraw.',
    withdrawn: 'It was withdrawn already; nothing was sent.',
  };
  return new ProblemError(409, 'change_not_withdrawable', words[status.state], {
    details: { change: status },
  });
}
