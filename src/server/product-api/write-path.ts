import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemSchema } from '#domain/errors.ts';
import type { DeviceChangeRequest } from '#domain/queued-change.ts';
import type { ChangeQueue } from '../budget/change-queue.ts';
import type { ChangeCall } from '../changes/change-kinds.ts';
import type { ChangeOutcome } from '../changes/change-outcomes.ts';
import type { ChangeService } from '../changes/change-service.ts';
import { readIdempotencyKey } from '../http/idempotency-key.ts';
import { PROBLEM_CONTENT_TYPE } from '../http/problem.ts';
import { readUndoOf } from '../http/undo-of.ts';
import type { Session } from '../session/session-store.ts';
import { sendLedgerAnswer } from './changes.ts';
import { readDeviceVersion } from './device-version.ts';

/**
 * The routes' side of a change to a device: reads what the request adds (`Idempotency-Key`,
 * `Powerdeck-Undo-Of`, `Powerdeck-Device-Version`) and sends the answer of the change service
 * (`changes/change-service.ts`), which decides it (docs/decisions/007-device-call-budget.md).
 */
export class WritePath {
  readonly #changes: ChangeService;

  constructor(changes: ChangeService) {
    this.#changes = changes;
  }

  get queue(): ChangeQueue {
    return this.#changes.queue;
  }

  /**
   * Answers a change of one upstream call (a submission, a cancel, a batch, a batch cancel).
   *
   * @throws ProblemError: 400 for a malformed header, and the service's refusals.
   */
  async single(
    request: FastifyRequest,
    reply: FastifyReply,
    session: Session,
    call: ChangeCall,
    ifLater: 'queue' | 'refuse' = 'queue',
  ): Promise<FastifyReply> {
    const undoOf = readUndoOf(request.headers);
    const idempotencyKey = readIdempotencyKey(request.headers);
    const deviceVersion = readDeviceVersion(request.headers);
    const outcome = await this.#changes.submit(session, call, {
      idempotencyKey,
      undoOf,
      requestId: request.id,
      deviceVersion,
      ifLater,
    });
    return sendOutcome(reply, outcome);
  }

  /**
   * Answers `POST /api/devices/{deviceId}/changes`, a change planned as a whole.
   *
   * @throws ProblemError: 400 for a malformed header, and the service's refusals.
   */
  async planned(
    request: FastifyRequest,
    reply: FastifyReply,
    session: Session,
    deviceId: string,
    body: DeviceChangeRequest,
    ifLater: 'queue' | 'refuse' = 'queue',
  ): Promise<FastifyReply> {
    const idempotencyKey = readIdempotencyKey(request.headers);
    const deviceVersion = readDeviceVersion(request.headers);
    const outcome = await this.#changes.submit(
      session,
      { kind: 'planned', deviceId, body },
      { idempotencyKey, deviceVersion, ifLater },
    );
    return sendOutcome(reply, outcome);
  }

  /**
   * When `deviceId` next has an upstream call free, epoch ms on the upstream's clock
   * ({@link ChangeService.nextCallAtMs}).
   */
  nextCallAtMs(session: Session, deviceId: string): Promise<number> {
    return this.#changes.nextCallAtMs(session, deviceId);
  }
}

/** Sends a change's answer; a refusal before anything was sent goes to the error handler. */
function sendOutcome(reply: FastifyReply, outcome: ChangeOutcome): FastifyReply {
  if ('problem' in outcome) throw outcome.problem;
  if ('ledger' in outcome) return sendLedgerAnswer(reply, outcome.ledger);
  if ('json' in outcome) return sendJson(reply, outcome.json.status, outcome.json.body);
  return sendStepAnswer(reply, outcome.step);
}

/**
 * A JSON answer sent as text, as the ledger's answers are: the route's declared union of answers
 * describes it, and each member was built from its domain shape.
 */
function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json').send(JSON.stringify(body));
}

/** A step's stored answer (a problem) sent as it was. */
function sendStepAnswer(
  reply: FastifyReply,
  answer: { status: number; body: unknown },
): FastifyReply {
  const problem = ProblemSchema.safeParse(answer.body);
  reply.code(answer.status);
  if (problem.success) return reply.type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem.data));
  return reply.send(answer.body);
}
