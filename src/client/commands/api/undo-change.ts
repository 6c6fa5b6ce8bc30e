import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { showToast } from '../../components/toast.tsx';
import { isApiError } from '../../lib/api-error.ts';
import { problemWords } from '../../lib/problem-words.ts';
import { invalidateDeviceCommands } from '../lib/command-caches.ts';
import { sameCommand, undoRefusal, undoTarget, type UndoableChange } from '../lib/undo.ts';
import { cancelCommand } from './cancel-command.ts';
import { getCommandStatus } from './get-command-status.ts';
import { submitCommand } from './submit-command.ts';

/** How an undo ended, in words for a toast. */
export type UndoOutcome = { ok: true; words: string } | { ok: false; words: string };

const OFFER_WORDS: Record<UndoableChange['kind'], string> = {
  submit: 'Undo cancels it while it has not started.',
  cancel: 'Undo sends it again while its window is ahead.',
  replace: 'Undo brings the old window back while the new command has not started.',
};

/** How long the Undo offer stays (it pauses while hovered or focused), ms. */
const UNDO_OFFER_MS = 10_000;

/**
 * Undoes one schedule change ({@link UndoableChange}): reads the status of the command it acts on
 * first and says why when undo is no longer possible ({@link undoRefusal}); else cancels or sends
 * again with `Powerdeck-Undo-Of` naming the change's key, and a key of its own, so the ledger
 * records the undo as its own entry. A resent command gets a new ID, and the overlap rule still
 * applies to it. Never throws.
 */
async function runUndo(change: UndoableChange, timeZone: string): Promise<UndoOutcome> {
  const target = undoTarget(change);
  const undo = { undoOf: change.key };
  try {
    const current =
      change.kind === 'cancel'
        ? undefined
        : await getCommandStatus(target.deviceId, target.commandId);
    const refusal = undoRefusal(change, current, Date.now());
    if (refusal) return { ok: false, words: refusal };
    switch (change.kind) {
      case 'submit':
        await cancelCommand(target.deviceId, target.commandId, {
          ...undo,
          idempotencyKey: crypto.randomUUID(),
        });
        return { ok: true, words: `Undone: command ${target.commandId} is cancelled.` };
      case 'cancel': {
        const sent = await submitCommand(change.record.deviceId, sameCommand(change.record), {
          ...undo,
          idempotencyKey: crypto.randomUUID(),
        });
        return {
          ok: true,
          words: `Undone: command ${change.record.id} is sent again as ${sent.id}, same window.`,
        };
      }
      case 'replace': {
        await cancelCommand(target.deviceId, target.commandId, {
          ...undo,
          idempotencyKey: crypto.randomUUID(),
        });
        const sent = await submitCommand(change.old.deviceId, sameCommand(change.old), {
          ...undo,
          idempotencyKey: crypto.randomUUID(),
        });
        return {
          ok: true,
          words: `Undone: command ${target.commandId} is cancelled and the old window is back as ${sent.id}.`,
        };
      }
    }
  } catch (error) {
    return {
      ok: false,
      words: isApiError(error)
        ? `Undo was refused: ${problemWords(error, timeZone)}`
        : 'Undo could not be sent. Reload the page to see the current commands.',
    };
  }
}

/**
 * Undo of schedule changes: `offerUndo` shows a short-lived toast with a keyboard-reachable Undo
 * (F6 reaches the toasts), `undo` undoes at once (Ctrl+Z). Either way the outcome, or why undo is
 * no longer possible, is said in a toast, and the device's commands are read again.
 */
export function useUndo() {
  const queryClient = useQueryClient();
  const undo = useCallback(
    async (change: UndoableChange, timeZone: string) => {
      const outcome = await runUndo(change, timeZone);
      await invalidateDeviceCommands(queryClient, [undoTarget(change).deviceId]);
      showToast({
        title: outcome.ok ? 'Change undone' : 'Not undone',
        description: outcome.words,
        tone: outcome.ok ? 'success' : 'warning',
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
