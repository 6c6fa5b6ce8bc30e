import { useCallback, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { applyCancellation, type DeviceCommand, type StatusRecord } from '#domain/command.ts';
import type { Device } from '#domain/device.ts';
import type { PowerControl } from '#domain/power-control.ts';
import { isQueuedAnswer } from '#domain/queued-change.ts';
import { commandWords } from '#client/commands/lib/command-words.ts';
import { useCancelCommand } from '#client/commands/api/cancel-command.ts';
import {
  afterDeviceChange,
  changeDevice,
  submissionKeyOf,
  wouldWaitUntil,
} from '#client/commands/api/device-changes.ts';
import { useSubmitCommand } from '#client/commands/api/submit-command.ts';
import { useUndo } from '#client/commands/api/undo-change.ts';
import type { QueuedLine } from '#client/commands/lib/queued.ts';
import { useQueuedLinesWords } from '#client/commands/components/queued-change-line.tsx';
import { submittedUndo, type UndoableChange } from '#client/commands/lib/undo.ts';
import { showToast } from '#client/components/toast.tsx';
import { isApiError } from '#client/lib/api-error.ts';
import { copyCommand, type CheckedCopy } from '../lib/copy-windows.ts';
import { submitErrorWords } from '../lib/submit-error-words.ts';
import type { FormState, RowTarget, WindowOfRow } from '../lib/timeline-types.ts';
import { useUndoKey } from './use-undo-key.ts';

const REPLACING_WORDS =
  'Replacing: the current command is cancelled, then the new one submitted (powerdeck plans both before the first goes)…';

/** The toolbar's notice: words, or queued changes' live lines between optional words. */
type Notice =
  string | { before?: string | undefined; lines: QueuedLine[]; after?: string | undefined };

const NO_LINES: readonly QueuedLine[] = [];

/**
 * The changes the timeline page sends (form, cancel, copies, replace, undo) and the notice of
 * each outcome.
 *
 * @param options.setForm closes the command form once its submission went.
 * @param options.setSelected clears the selected window once a replace went.
 * @param options.failedSlots history ranges that could not be loaded, told in the notice.
 */
export function useTimelineChanges({
  setForm,
  setSelected,
  failedSlots,
}: {
  setForm: (form: FormState | undefined) => void;
  setSelected: (selected: WindowOfRow | undefined) => void;
  failedSlots: number;
}) {
  const queryClient = useQueryClient();
  /** A replace that would wait for the device's calls, asked about before it is queued. */
  const [replaceLater, setReplaceLater] = useState<{
    target: RowTarget;
    old: StatusRecord;
    next: DeviceCommand;
    goesAt: string;
  }>();
  const [notice, setNotice] = useState<Notice>();
  const queuedLinesNow = useQueuedLinesWords(typeof notice === 'object' ? notice.lines : NO_LINES);
  const noticeWords =
    typeof notice === 'object'
      ? [notice.before, ...queuedLinesNow, notice.after].filter(Boolean).join(' ')
      : notice;
  const [replacing, setReplacing] = useState(false);
  const [replaceFailure, setReplaceFailure] = useState<{
    old: StatusRecord;
    next: DeviceCommand;
    target: RowTarget;
    error: unknown;
    oldCancelled: boolean;
  }>();

  // The last changes made here, for Ctrl+Z and the toast's Undo.
  const [lastChanges, setLastChanges] = useState<{
    changes: readonly UndoableChange[];
    timeZone: string;
  }>();
  const { undo, offerUndo } = useUndo();
  const changed = (change: UndoableChange, title: string, timeZone: string) => {
    setLastChanges({ changes: [change], timeZone });
    offerUndo(change, title, timeZone);
  };
  const onUndoKey = useUndoKey(
    useCallback(() => {
      if (!lastChanges) {
        showToast({
          title: 'Nothing to undo',
          description:
            'Ctrl+Z undoes the last change made on this timeline; none is left to undo here.',
          tone: 'info',
        });
        return;
      }
      setLastChanges(undefined);
      for (const change of lastChanges.changes) void undo(change, lastChanges.timeZone);
    }, [lastChanges, undo]),
  );

  // The form's submission is checked until decided, as on the device page: an outage shows
  // "outcome not known yet" in the dialog, never a refusal.
  const submit = useSubmitCommand();
  const submitFor = (device: Device, command: DeviceCommand, timeZone: string) =>
    submit.mutate(
      { deviceId: device.deviceId, command },
      {
        onSuccess: (response, { idempotencyKey }) => {
          setForm(undefined);
          // A queued submission has no command yet to undo; withdrawing it is its undo.
          if (isQueuedAnswer(response))
            return setNotice({
              lines: [{ what: `Command for ${device.name}`, queued: response.queued, timeZone }],
            });
          setNotice(`Command ${response.id} submitted for ${device.name}.`);
          changed(...submittedUndo(device, command, response.id, idempotencyKey, timeZone));
        },
      },
    );

  const cancel = useCancelCommand();
  const cancelRecord = (record: StatusRecord, deviceName: string, timeZone: string) =>
    cancel.mutate(
      { deviceId: record.deviceId, commandId: record.id },
      {
        onSuccess: (cancellation, { idempotencyKey }) => {
          if (isQueuedAnswer(cancellation))
            return setNotice({
              lines: [
                { what: `Cancel of command ${record.id}`, queued: cancellation.queued, timeZone },
              ],
            });
          setNotice(`Command ${cancellation.commandId} cancelled.`);
          changed(
            {
              kind: 'cancel',
              record: applyCancellation(record, cancellation),
              key: idempotencyKey,
            },
            `${commandWords(record, deviceName, timeZone)} cancelled`,
            timeZone,
          );
        },
      },
    );

  // Copies use their own submission hook: one key per copy, the form's state untouched, and no
  // wait-until-decided (a summary, not a check, per copy).
  const copySubmit = useSubmitCommand({ untilDecided: false });
  const sendCopies = async (
    copies: readonly CheckedCopy[],
    powerControl: PowerControl,
    refused: readonly CheckedCopy[],
    timeZone: string,
  ) => {
    const keys = copies.map(() => crypto.randomUUID());
    const outcomes = await Promise.allSettled(
      copies.map((copy, i) =>
        copySubmit.mutateAsync({
          deviceId: copy.target.device.deviceId,
          command: copyCommand(copy, powerControl),
          idempotencyKey: keys[i],
        }),
      ),
    );
    const changes: UndoableChange[] = [];
    const sent: { label: string; id: string }[] = [];
    const queued: QueuedLine[] = [];
    const failed: string[] = [];
    outcomes.forEach((outcome, i) => {
      const copy = copies[i];
      const key = keys[i];
      if (!copy || !key) return;
      if (outcome.status === 'rejected') {
        failed.push(`${copy.label}: ${submitErrorWords(outcome.reason, timeZone)}`);
        return;
      }
      const answer = outcome.value;
      // A queued copy has no command yet to undo; withdrawing it is its undo.
      if (isQueuedAnswer(answer)) {
        queued.push({ what: `Copy for ${copy.label}`, queued: answer.queued, timeZone });
        return;
      }
      sent.push({ label: copy.label, id: answer.id });
      changes.push({
        kind: 'submit',
        deviceId: copy.target.device.deviceId,
        commandId: answer.id,
        key,
      });
    });
    const notSent = [...refused.map((copy) => `${copy.label}: ${copy.refusal ?? ''}`), ...failed];
    const sentWords =
      sent.length > 0 || queued.length === 0
        ? `${sent.length} ${sent.length === 1 ? 'copy' : 'copies'} sent${
            sent.length ? `: ${sent.map((copy) => `${copy.id} for ${copy.label}`).join(', ')}` : ''
          }.`
        : undefined;
    const notSentWords = notSent.length ? `Not sent: ${notSent.join(' ')}` : undefined;
    setNotice({ before: sentWords, lines: queued, after: notSentWords });
    if (changes.length === 0) return;
    setLastChanges({ changes, timeZone });
    const [only] = changes;
    const [first] = sent;
    if (changes.length === 1 && only && first)
      offerUndo(only, `Copy sent for ${first.label}`, timeZone);
    else
      showToast({
        title: `${changes.length} copies sent`,
        description: `Undo cancels all ${changes.length} while they have not started.`,
        tone: 'success',
        action: {
          label: 'Undo',
          onAction: () => changes.forEach((change) => void undo(change, timeZone)),
        },
        timeoutMs: 10_000,
      });
  };

  /** Replaces `old` by `next`; one the budget would queue is asked about first (`ifLater: refuse`). */
  const runReplace = async (
    target: RowTarget,
    old: StatusRecord,
    next: DeviceCommand,
    ifLater: 'queue' | 'refuse' = 'refuse',
  ) => {
    setForm(undefined);
    setReplaceFailure(undefined);
    setNotice(undefined);
    setReplacing(true);
    const timeZone = target.site.timeZone;
    try {
      // Planned as one change so it is never left half done (docs/decisions/007-device-call-budget.md, section 2).
      const answer = await changeDevice(
        old.deviceId,
        { kind: 'replace', commandId: old.id, command: next },
        { idempotencyKey: crypto.randomUUID() },
        ifLater,
      );
      setSelected(undefined);
      if (answer.queued) {
        // The cancel may have gone already, the new window waiting for the device's next call.
        const firstWent = answer.change.state !== 'queued';
        return setNotice({
          lines: [
            {
              what: `Replace of command ${old.id} on ${target.device.name}`,
              queued: answer.queued,
              timeZone,
              withdrawable: !firstWent,
              ...(firstWent
                ? {
                    waitingWords: `Command ${old.id} on ${target.device.name} is cancelled; its new window is not sent yet.`,
                  }
                : {}),
            },
          ],
        });
      }
      const submitted = answer.submitted;
      const key = submissionKeyOf(answer);
      setNotice(
        `Command ${old.id} replaced${submitted ? ` by ${submitted.id}` : ''} on ${target.device.name}.`,
      );
      if (submitted && key)
        changed(
          {
            kind: 'replace',
            old,
            next: { deviceId: old.deviceId, commandId: submitted.id },
            key,
          },
          `Command ${old.id} replaced by ${submitted.id}`,
          timeZone,
        );
    } catch (error) {
      const goesAt = wouldWaitUntil(error);
      if (goesAt) return setReplaceLater({ target, old, next, goesAt });
      // Only a refused second call leaves the old command cancelled; any other refusal sent nothing.
      const oldCancelled = isApiError(error) && error.code === 'change_incomplete';
      setReplaceFailure({ old, next, target, error, oldCancelled });
    } finally {
      setReplacing(false);
      // The replace ran its own calls, so the device is read again here, on every screen.
      await afterDeviceChange(queryClient, old.deviceId);
    }
  };

  const noticeText = `${replacing ? REPLACING_WORDS : (noticeWords ?? '')}${
    failedSlots > 0 ? ` Some history could not be loaded (${failedSlots}); retrying.` : ''
  }`;

  return {
    setNotice,
    noticeText,
    replaceLater,
    setReplaceLater,
    replaceFailure,
    setReplaceFailure,
    onUndoKey,
    submit,
    submitFor,
    cancel,
    cancelRecord,
    copySubmit,
    sendCopies,
    runReplace,
  };
}
