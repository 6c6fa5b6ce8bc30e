import type { ChangeStep } from '../../domain/queued-change.ts';
import { findActiveOverlap } from '../../domain/overlap.ts';
import { WINDOW_ENDED_WORDS, toWindowMs, windowHasEnded } from '../../domain/time-window.ts';
import { ProblemError } from '../http/problem.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import type { KnownCommandSource } from '../upstream/upstream-api.ts';
import { windowOverlapWords } from '../upstream/upstream-problem.ts';

/**
 * Checks the steps of a change, in sending order, before anything of it is sent or queued
 * (docs/architecture.md, Write path; docs/decisions/007-device-call-budget.md, section 1: a call
 * the vendor would refuse is a call of the device's budget spent for nothing):
 * - a submission's or a batch's window that has already ended at `nowMs` (the upstream's clock;
 *   domain `windowHasEnded`) is refused 422 `window_ended`;
 * - a submission whose window overlaps an active command the BFF knows of its device (the read
 *   model's, `known`; domain `findActiveOverlap`) is refused 409 `window_overlap` naming that
 *   command, in the words of the vendor's own refusal. A command that an earlier step of the same
 *   change cancels (a replace's, an undo's) is not in its way.
 *
 * A batch is not checked for overlap: the vendor takes it and cancels the command of a device
 * whose window overlaps (docs/upstream.md, Batch), which the batch's outcome then names.
 *
 * @throws ProblemError 422 `window_ended`, 409 `window_overlap` (`details`: the command in the way).
 */
export async function checkChangeSteps(
  caller: UpstreamCaller,
  steps: readonly ChangeStep[],
  context: { nowMs: number; known?: KnownCommandSource | undefined },
): Promise<void> {
  const cancelled = new Set<string>();
  for (const step of steps) {
    switch (step.call) {
      case 'cancel':
        cancelled.add(`${step.deviceId} ${step.commandId}`);
        break;
      case 'batch':
        if (windowHasEnded(step.batch.command, context.nowMs)) throw windowEnded();
        break;
      case 'submit': {
        if (windowHasEnded(step.command, context.nowMs)) throw windowEnded();
        if (!context.known) break;
        const window = toWindowMs(step.command);
        const known = await context.known(caller, step.deviceId, window);
        const inTheWay = findActiveOverlap(
          window,
          known.filter((record) => !cancelled.has(`${step.deviceId} ${record.id}`)),
        );
        if (inTheWay) {
          const details = {
            conflictingCommandId: inTheWay.id,
            startTime: inTheWay.startTime,
            endTime: inTheWay.endTime,
          };
          throw new ProblemError(
            409,
            'window_overlap',
            windowOverlapWords(step.deviceId, details),
            { details },
          );
        }
        break;
      }
      case 'batchCancel':
        break;
    }
  }
}

function windowEnded(): ProblemError {
  return new ProblemError(422, 'window_ended', WINDOW_ENDED_WORDS);
}
