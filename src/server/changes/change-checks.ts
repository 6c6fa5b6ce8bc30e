import type { ChangeStep } from '#domain/queued-change.ts';
import { findActiveOverlap } from '#domain/overlap.ts';
import { WINDOW_ENDED_WORDS, toWindowMs, windowHasEnded } from '#domain/time-window.ts';
import { ProblemError } from '../http/problem.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import type { KnownCommandSource } from '../upstream/upstream-api.ts';
import { windowOverlapWords } from '../upstream/upstream-problem.ts';

/**
 * Checks a change's steps before anything is sent or queued: a call the vendor would refuse is a
 * call of the device's budget spent for nothing (decision 007, section 1; docs/architecture.md,
 * BFF surface). A command an earlier step of the change cancels is not in the way. A batch is not
 * checked for overlap: the vendor cancels the overlapped device's command (docs/upstream.md, Batch).
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
