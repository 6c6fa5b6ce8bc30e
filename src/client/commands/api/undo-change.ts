import { useQueryClient } from '@tanstack/react-query';
import { createElement, useCallback } from 'react';
import { showToast } from '../../components/toast.tsx';
import { isApiError } from '../../lib/api-error.ts';
import { problemWords } from '../../lib/problem-words.ts';
import type { StatusRecord } from '#domain/command.ts';
import { isQueuedAnswer, type DeviceChangeRequest } from '#domain/queued-change.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { QueuedChangeLine } from '../components/queued-change-line.tsx';
import { queuedLineWords, type QueuedLine } from '../lib/queued.ts';
import {
  batchUndoRefusal,
  sameCommand,
  undoDevices,
  undoRefusal,
  undoTarget,
  type SingleChange,
  type UndoableChange,
} from '../lib/undo.ts';
import { cancelBatch } from './cancel-batch.ts';
import { getLedgerPage } from './get-ledger.ts';
import { getCommandStatus } from './get-command-status.ts';
import { changeDevice } from './device-changes.ts';

/**
 * How an undo ended, for a toast: `batch` names a batch not ended (its page, with the cancel
 * confirmation when `offerCancel`); `queued` the line of a queued undo to follow.
 */
export type UndoOutcome =
  | { ok: true; words: string; queued?: QueuedLine }
  | {
      ok: false;
      words: string;
      batch?: { batchCommandId: string; offerCancel: boolean };
    };

const OFFER_WORDS: Record<UndoableChange['kind'], string> = {
  submit: 'Undo cancels it while it has not started.',
  cancel: 'Undo sends it again while its window is ahead.',
  replace: 'Undo brings the old window back while the new command has not started.',
  batch: 'Undo cancels the whole batch while none of its commands has started.',
};

/** How long the Undo offer stays (it pauses while hovered or focused), ms. */
const UNDO_OFFER_MS = 10_000;

/**
 * Undoes one change: says why when it no longer can ({@link undoRefusal}), else asks the BFF for
 * it as one planned change ({@link changeDevice}), recorded with `undoOf`. Never throws.
 */
async function runUndo(change: SingleChange, timeZone: string): Promise<UndoOutcome> {
  const target = undoTarget(change);
  try {
    const current =
      change.kind === 'cancel'
        ? undefined
        : await getCommandStatus(target.deviceId, target.commandId);
    const refusal = undoRefusal(change, current, Date.now());
    if (refusal) return { ok: false, words: refusal };
    const answer = await changeDevice(target.deviceId, undoRequest(change, current), {
      idempotencyKey: crypto.randomUUID(),
    });
    if (answer.queued)
      return queuedUndo({
        what: 'Undo',
        queued: answer.queued,
        timeZone,
        withdrawable: answer.change.state === 'queued',
      });
    switch (change.kind) {
      case 'submit':
        return { ok: true, words: `Undone: command ${target.commandId} is cancelled.` };
      case 'cancel':
        return {
          ok: true,
          words: `Undone: command ${change.record.id} is sent again as ${answer.submitted?.id ?? 'a new command'}, same window.`,
        };
      case 'replace':
        return {
          ok: true,
          words: `Undone: command ${target.commandId} is cancelled and the old window is back as ${answer.submitted?.id ?? 'a new command'}.`,
        };
    }
  } catch (error) {
    return failedUndo(error, timeZone);
  }
}

/** The BFF's change that undoes `change`; `current` is its target's status (not for a cancel). */
function undoRequest(change: SingleChange, current: StatusRecord | undefined): DeviceChangeRequest {
  switch (change.kind) {
    case 'submit':
      return {
        kind: 'undoSubmit',
        undoOf: change.key,
        commandId: change.commandId,
        // The cancel must go before the command starts: undo never stops a started command.
        startTime: current?.startTime ?? new Date().toISOString(),
      };
    case 'cancel':
      return { kind: 'undoCancel', undoOf: change.key, command: sameCommand(change.record) };
    case 'replace':
      return {
        kind: 'undoReplace',
        undoOf: change.key,
        commandId: change.next.commandId,
        command: sameCommand(change.old),
      };
  }
}

/** An undo the BFF queued: its words while it waits, and its line to follow it by. */
function queuedUndo(line: QueuedLine): UndoOutcome {
  return { ok: true, words: queuedLineWords(line, undefined), queued: line };
}

function failedUndo(error: unknown, timeZone: string): UndoOutcome {
  return {
    ok: false,
    words: isApiError(error)
      ? `Undo was refused: ${problemWords(error, timeZone)}`
      : 'Undo could not be sent. Reload the page to see the current commands.',
  };
}

/**
 * Undoes a batch submission by cancelling the batch, only while every device command is known and
 * still `received` ({@link batchUndoRefusal}): undo never stops a started command. Never throws.
 */
async function runBatchUndo(
  change: Extract<UndoableChange, { kind: 'batch' }>,
  timeZone: string,
): Promise<UndoOutcome> {
  const { batchCommandId } = change;
  try {
    const { entries } = await getLedgerPage({ batchCommandId, kind: 'batch' });
    const outcome = entries[0]?.outcome;
    const unconfirmed = outcome?.unconfirmed ?? [];
    if (unconfirmed.length > 0)
      return {
        ok: false,
        words: `Undo is not possible yet: the command of ${unconfirmed.length} device${unconfirmed.length === 1 ? '' : 's'} of this batch is not confirmed yet, so whether it has started is not known. Cancel the batch to stop the commands still waiting or running.`,
        batch: { batchCommandId, offerCancel: true },
      };
    const commands =
      outcome?.commands?.map((c) => ({ deviceId: c.deviceId, commandId: c.id })) ?? change.commands;
    const current = await Promise.all(
      commands.map((c) => getCommandStatus(c.deviceId, c.commandId)),
    );
    const refusal = batchUndoRefusal(current);
    if (refusal) return { ok: false, words: refusal, batch: { batchCommandId, offerCancel: true } };
    const answer = await cancelBatch(batchCommandId, {
      undoOf: change.key,
      idempotencyKey: crypto.randomUUID(),
    });
    if (isQueuedAnswer(answer))
      return queuedUndo({
        what: `Undo of batch ${batchCommandId}`,
        queued: answer.queued,
        timeZone,
      });
    const failed = answer.results.filter((r) => !r.success).length;
    return failed === 0
      ? {
          ok: true,
          words: `Undone: batch ${batchCommandId} is cancelled, all ${answer.results.length} of its commands.`,
        }
      : {
          ok: false,
          words: `Batch ${batchCommandId} is cancelled on ${answer.results.length - failed} of ${answer.results.length} devices; ${failed} could not be cancelled. Its page says why.`,
          batch: { batchCommandId, offerCancel: false },
        };
  } catch (error) {
    return failedUndo(error, timeZone);
  }
}

export function batchCancelPath(batchCommandId: string): string {
  return `/batches/${encodeURIComponent(batchCommandId)}?confirm=cancel`;
}

/** Undo of schedule changes: `offerUndo` shows a toast with Undo, `undo` undoes now (Ctrl+Z); the outcome is told in a toast. */
export function useUndo() {
  const queryClient = useQueryClient();
  const undo = useCallback(
    async (change: UndoableChange, timeZone: string) => {
      const outcome =
        change.kind === 'batch'
          ? await runBatchUndo(change, timeZone)
          : await runUndo(change, timeZone);
      await invalidateDeviceCommands(queryClient, undoDevices(change));
      const batch = outcome.ok ? undefined : outcome.batch;
      const queued = outcome.ok ? outcome.queued : undefined;
      showToast({
        title: queued ? 'Undo queued' : outcome.ok ? 'Change undone' : 'Not undone',
        // A queued undo goes after a timed toast would be gone: its toast follows it until dismissed.
        description: queued ? createElement(QueuedChangeLine, queued) : outcome.words,
        ...(queued ? { timeoutMs: null } : {}),
        tone: queued ? 'info' : outcome.ok ? 'success' : 'warning',
        // The page's own cancel, with its confirmation, stops what is still waiting or running.
        link: batch
          ? batch.offerCancel
            ? { label: 'Cancel the batch…', to: batchCancelPath(batch.batchCommandId) }
            : {
                label: `Open batch ${batch.batchCommandId}`,
                to: `/batches/${encodeURIComponent(batch.batchCommandId)}`,
              }
          : undefined,
      });
      return outcome;
    },
    [queryClient],
  );
  const offerUndo = useCallback(
    (change: UndoableChange, title: string, timeZone: string) =>
      showToast({
        title,
        description: OFFER_WORDS[change.kind],
        tone: 'success',
        action: { label: 'Undo', onAction: () => void undo(change, timeZone) },
        timeoutMs: UNDO_OFFER_MS,
      }),
    [undo],
  );
  return { undo, offerUndo };
}
