import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import {
  applyCancellation,
  isActiveStatus,
  isCancellable,
  type DeviceCommand,
  type StatusRecord,
} from '../../../../domain/command.ts';
import type { Device, Site } from '../../../../domain/device.ts';
import type { PowerControl } from '../../../../domain/power-control.ts';
import type { WindowMs } from '../../../../domain/time-window.ts';
import { commandWords } from '../../../commands/lib/command-words.ts';
import { BudgetTooTightDetailsSchema } from '../../../../domain/errors.ts';
import { isQueuedAnswer } from '../../../../domain/queued-change.ts';
import { useCancelCommand } from '../../../commands/api/cancel-command.ts';
import {
  queuedChangesQueryOptions,
  useWithdrawChange,
} from '../../../commands/api/queued-changes.ts';
import {
  afterDeviceChange,
  changeDevice,
  submissionKeyOf,
  wouldWaitUntil,
} from '../../../commands/api/device-changes.ts';
import { useSubmitCommand } from '../../../commands/api/submit-command.ts';
import { OutcomeCheckingStatus } from '../../../commands/components/outcome-checking-status.tsx';
import { useUndo } from '../../../commands/api/undo-change.ts';
import type { QueuedLine } from '../../../commands/lib/queued.ts';
import { useQueuedLinesWords } from '../../../commands/components/queued-change-line.tsx';
import { sameCommand, type UndoableChange } from '../../../commands/lib/undo.ts';
import { WithdrawChangeDialog } from '../../../commands/components/withdraw-change-dialog.tsx';
import type { MenuAction } from '../../../components/menu.tsx';
import { showToast } from '../../../components/toast.tsx';
import { deviceHistoryPath } from '../../../lib/device-paths.ts';
import { describePowerControl } from '../../../lib/power-control-words.ts';
import { useUndoKey } from '../hooks/use-undo-key.ts';
import { useFillViewport } from '../hooks/use-fill-viewport.ts';
import { useTimelineBars } from '../hooks/use-timeline-bars.ts';
import type { Bar } from '../lib/bars.ts';
import {
  checkCopies,
  copyCommand,
  copyOf,
  pasteCopies,
  type CheckedCopy,
  type CopiedWindow,
} from '../lib/copy-windows.ts';
import { editLock, editLockWords } from '../lib/edit-lock.ts';
import { withoutCancelled } from '../lib/shown-bars.ts';
import {
  overlapIndexWithQueued,
  queuedWindowsOf,
  withQueuedCancels,
} from '../lib/queued-windows.ts';
import type { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import type { GhostWindow, QueuedMark } from '../lib/ghosts.ts';
import { submitErrorWords } from '../lib/submit-error-words.ts';
import {
  firstViewOf,
  SNAP_MINUTES,
  viewSearch,
  type TimelineSearch,
} from '../lib/timeline-search.ts';
import { windowLengthWords } from '../lib/window-words.ts';
import { CancelConfirm } from './cancel-confirm.tsx';
import { ReplaceLaterConfirm } from './replace-later-confirm.tsx';
import { CommandFormDialog } from './command-form-dialog.tsx';
import { DetailPanel } from './detail-panel.tsx';
import { DuplicateDialog } from './duplicate-dialog.tsx';
import type { RowTarget, TimelineViewport } from '../lib/timeline-types.ts';
import { TimelineView } from './timeline-view.tsx';
import { isApiError } from '../../../lib/api-error.ts';
import { problemWords } from '../../../lib/problem-words.ts';

/** What a viewer is told when a drag, a key or a paste would change something. */
export const VIEWER_REFUSAL_WORDS =
  'Viewers can look but not schedule: ask for the dispatcher role.';

type FormState = {
  target: RowTarget;
  startMs: number;
  endMs: number;
  powerControl?: StatusRecord['powerControl'];
  replacing?: StatusRecord;
};

/** A window and its row: what a menu action or a confirmation is about. */
type WindowOfRow = { target: RowTarget; record: StatusRecord };

/**
 * The new window moved to the earliest start the device's budget of upstream calls allows, same
 * length, after a `budget_too_tight` refusal; undefined for any other error. Rounded up to the
 * minute, as the form takes times.
 */
function laterWindow(error: unknown, next: DeviceCommand): WindowMs | undefined {
  if (!isApiError(error) || error.code !== 'budget_too_tight') return undefined;
  const details = BudgetTooTightDetailsSchema.safeParse(error.details);
  if (!details.success) return undefined;
  const startMs = Math.ceil(Date.parse(details.data.earliestStart) / 60_000) * 60_000;
  return {
    startMs,
    endMs: startMs + Date.parse(next.endTime) - Date.parse(next.startTime),
  };
}

const REPLACING_WORDS =
  'Replacing: the current command is cancelled, then the new one submitted (powerdeck plans both before the first goes)…';

/**
 * What the toolbar's notice says: plain words, or queued changes' lines (each following its change
 * live) between optional words before and after them.
 */
type Notice =
  string | { before?: string | undefined; lines: QueuedLine[]; after?: string | undefined };

const NO_LINES: readonly QueuedLine[] = [];

/**
 * The timeline editor page: bound sites' devices as rows, command windows as bars,
 * drag to schedule, details in a drawer with cancel, replace by drag or edit; each window's menu
 * (Copy, Replace, Duplicate, Cancel, Open history), copy and paste, cancelled windows shown or
 * hidden. It fills the window below the navigation, full width and full height; the grid takes
 * what the toolbar leaves. Its filters and view live in `search` (the URL), changed through
 * `onSearchChange`. With `dispatchRefusal` (a role that may only read) it reads only: no form,
 * change or undo opens, and a drag, a change key or a paste says why instead.
 */
export function TimelinePage({
  sites,
  dispatchRefusal,
  search,
  onSearchChange,
  clockNotice,
}: {
  sites: readonly Site[];
  /** Why the operator may not schedule or cancel, in words; undefined when they may. */
  dispatchRefusal?: string | undefined;
  /** The view state kept in the URL (lib/timeline-search.ts). */
  search: TimelineSearch;
  onSearchChange: (next: Partial<TimelineSearch>) => void;
  /** The clock notices of the sites on a fixed UTC offset, from the page, under the header. */
  clockNotice?: ReactNode;
}) {
  const canChange = dispatchRefusal === undefined;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { q: filter, utc, showCancelled } = search;
  const snapMs = search.snapMinutes * 60_000;
  const hiddenSites = useMemo(() => new Set(search.hiddenSiteIds), [search.hiddenSiteIds]);
  const [nowMs, setNowMs] = useState(() => Date.now());
  // The view a reload or a shared link opens on; later moves only write the URL.
  const [firstView] = useState(() => firstViewOf(search, nowMs));
  const [viewport, setViewport] = useState<TimelineViewport>();
  const [selected, setSelected] = useState<WindowOfRow>();
  const [form, setForm] = useState<FormState>();
  const [confirmCancel, setConfirmCancel] = useState<WindowOfRow>();
  /** A replace that would wait for the device's calls, asked about before it is queued. */
  const [replaceLater, setReplaceLater] = useState<{
    target: RowTarget;
    old: StatusRecord;
    next: DeviceCommand;
    goesAt: string;
  }>();
  const [duplicating, setDuplicating] = useState<WindowOfRow>();
  const [copied, setCopied] = useState<CopiedWindow>();
  // A queued change's line follows the change live (sent, refused, withdrawn).
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

  const pageRef = useRef<HTMLElement>(null);
  // The page ends a small gap above the window's bottom edge; the grid takes what is left.
  useFillViewport(pageRef, 12);

  useEffect(() => {
    const timer = setInterval(() => setNowMs(Date.now()), 10_000);
    return () => clearInterval(timer);
  }, []);

  const shownSites = useMemo(
    () => sites.filter((site) => !hiddenSites.has(site.siteId)),
    [sites, hiddenSites],
  );
  const { barsByDevice, overlapIndex: commandIndex, failedSlots } = useTimelineBars(viewport);
  // The changes waiting for their devices' budget of upstream calls (the /changes page's query):
  // their windows drawn as queued, the commands they will cancel marked, both until they are sent.
  const waitingChanges = useQuery(queuedChangesQueryOptions({ waiting: 'true' }));
  const withdraw = useWithdrawChange();
  /** A queued change to withdraw once the operator confirms: its mark and the row it was chosen on. */
  const [confirmWithdraw, setConfirmWithdraw] = useState<{ target: RowTarget; mark: QueuedMark }>();
  /** The clock a device's times are written on: its site's, or UTC with the UTC switch on. */
  const zoneOfDevice = useMemo(() => {
    const zones = new Map(
      sites.flatMap((site) => site.devices.map((d) => [d.deviceId, site.timeZone] as const)),
    );
    return (deviceId: string) => (utc ? 'UTC' : (zones.get(deviceId) ?? 'UTC'));
  }, [sites, utc]);
  const queued = useMemo(
    () => queuedWindowsOf(waitingChanges.data?.changes ?? [], zoneOfDevice),
    [waitingChanges.data, zoneOfDevice],
  );
  const shownBars = useMemo(
    () =>
      withQueuedCancels(
        showCancelled ? barsByDevice : withoutCancelled(barsByDevice),
        queued.cancelsByCommand,
        zoneOfDevice,
      ),
    [barsByDevice, showCancelled, queued, zoneOfDevice],
  );
  // A queued window is taken like an active command's: drawing, moving, pasting or the form onto
  // it is refused before anything is sent.
  const overlapIndex = useCallback(
    (deviceId: string): DeviceOverlapIndex | undefined => {
      const ghosts = queued.ghostsByDevice.get(deviceId);
      return ghosts?.length
        ? overlapIndexWithQueued(barsByDevice.get(deviceId), ghosts)
        : commandIndex(deviceId);
    },
    [commandIndex, barsByDevice, queued],
  );
  const zoneOf = (target: RowTarget) => (utc ? 'UTC' : target.site.timeZone);

  // The selected record follows the polled history while its row is in view.
  const selectedRecord = useMemo(() => {
    if (!selected) return undefined;
    const live = barsByDevice
      .get(selected.target.device.deviceId)
      ?.find((bar) => bar.id === selected.record.id)?.record;
    return live ?? selected.record;
  }, [selected, barsByDevice]);

  // The last schedule changes made here (one, or a paste's or duplicate's copies), for Ctrl+Z;
  // each is offered as Undo in a toast too.
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
          changed(
            {
              kind: 'submit',
              deviceId: device.deviceId,
              commandId: response.id,
              key: idempotencyKey,
            },
            `${commandWords(command, device.name, timeZone)} scheduled`,
            timeZone,
          );
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

  // Copies (a paste, a duplicate) go through a submission hook of their own: each is its own
  // intent with its own key, and the form's pending state and error stay the form's. Sent many
  // at once, each gets two quick retries and then its words in the summary, not a check to show.
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
    // Each queued copy's line follows its change (sent, refused, withdrawn) in the notice.
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

  /**
   * Replaces `old` by `next`. First only if it can go at once (`ifLater` `refuse`): a replace the
   * device's budget would queue is asked about first, nothing sent ({@link ReplaceLaterConfirm});
   * the operator's yes sends it again to be queued.
   */
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
      // One change planned as a whole by powerdeck: both calls get their slot of the device's
      // budget before the first goes, and go together, so a replace is never left half done
      // (docs/decisions/007-device-call-budget.md, section 2).
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

  const openCreate = (target: RowTarget, window: WindowMs) => {
    if (!canChange) return setNotice(dispatchRefusal);
    submit.reset();
    setNotice(undefined);
    setForm({ target, ...window });
  };

  /** Opens the replace form of `record`, or says why its window may no longer change. */
  const openReplace = ({ target, record }: WindowOfRow) => {
    const lock = editLock(
      {
        status: record.status,
        startMs: Date.parse(record.startTime),
        queuedCancel: queued.cancelsByCommand.get(record.id),
      },
      nowMs,
    );
    if (lock)
      return showToast({
        title: `Command ${record.id} not replaced`,
        description: editLockWords(record.id, lock, zoneOf(target)),
        tone: 'warning',
      });
    submit.reset();
    setForm({
      target,
      startMs: Date.parse(record.startTime),
      endMs: Date.parse(record.endTime),
      powerControl: record.powerControl,
      replacing: record,
    });
  };

  const copyWindow = (target: RowTarget, bar: Bar) => {
    const copy = copyOf(bar.record, target.device.name);
    setCopied(copy);
    setNotice(
      `Copied ${describePowerControl(copy.powerControl)} for ${windowLengthWords(copy.durationMs)} from ${target.device.name}: Ctrl+V pastes it under the pointer or after the focused window.`,
    );
  };

  /** Checks a paste on every target before anything is sent; the refusal, or undefined. */
  const paste = (targets: RowTarget[], atMs: number): string | undefined => {
    if (!canChange) return VIEWER_REFUSAL_WORDS;
    if (!copied) return 'Nothing is copied yet: Ctrl+C on a window copies it.';
    const checked = checkCopies(
      pasteCopies(copied, targets, atMs),
      copied.powerControl,
      Date.now(),
      overlapIndex,
      zoneOf,
    );
    const refused = checked.filter((copy) => copy.refusal);
    if (refused.length > 0)
      return targets.length === 1
        ? refused[0]?.refusal
        : `Nothing pasted: ${refused.map((copy) => `${copy.label}: ${copy.refusal ?? ''}`).join(' ')}`;
    const [first] = targets;
    void sendCopies(checked, copied.powerControl, [], first ? zoneOf(first) : 'UTC');
    return undefined;
  };

  const barMenuActions = (target: RowTarget, bar: Bar): readonly MenuAction[] => {
    const { record } = bar;
    const subject = { target, record };
    const history: MenuAction = {
      id: 'history',
      label: 'Open history',
      onAction: () => void navigate(deviceHistoryPath(target.site.siteId, target.device.deviceId)),
    };
    const copy: MenuAction = {
      id: 'copy',
      label: 'Copy window (Ctrl+C)',
      onAction: () => copyWindow(target, bar),
    };
    if (!canChange) return [copy, history];
    // Its cancel waits for the device's budget: withdrawing that cancel is what can be done.
    if (bar.queuedCancel)
      return [
        copy,
        withdrawAction(target, bar.queuedCancel, 'Withdraw queued cancel…'),
        openQueuedChanges,
        history,
      ];
    return [
      copy,
      ...(isActiveStatus(record.status)
        ? [{ id: 'replace', label: 'Replace…', onAction: () => openReplace(subject) }]
        : []),
      {
        id: 'duplicate',
        label: 'Duplicate to devices or days…',
        onAction: () => {
          copySubmit.reset();
          setDuplicating(subject);
        },
      },
      ...(isCancellable(record.status)
        ? [
            {
              id: 'cancel',
              label: 'Cancel command…',
              tone: 'danger' as const,
              onAction: () => {
                cancel.reset();
                setConfirmCancel(subject);
              },
            },
          ]
        : []),
      history,
    ];
  };

  /** The waiting change `mark` names, as the list of queued changes holds it now. */
  const waitingChange = (mark: QueuedMark) =>
    waitingChanges.data?.changes.find((change) => change.id === mark.changeId);

  /** Withdraw of a queued change, asked to confirm first; disabled once its first call went. */
  const withdrawAction = (target: RowTarget, mark: QueuedMark, label: string): MenuAction => ({
    id: 'withdraw',
    label: mark.withdrawable ? label : `${label.replace('…', '')} (no longer: its first call went)`,
    tone: 'danger',
    isDisabled: !mark.withdrawable || withdraw.isPending,
    onAction: () => setConfirmWithdraw({ target, mark }),
  });

  const openQueuedChanges: MenuAction = {
    id: 'queued-changes',
    label: 'Open queued changes',
    onAction: () => void navigate('/changes'),
  };

  /** The menu of a queued change's window: withdraw it (after a confirmation), or see the list. */
  const queuedMenuActions = (target: RowTarget, ghost: GhostWindow): readonly MenuAction[] =>
    ghost.queued && canChange
      ? [withdrawAction(target, ghost.queued, 'Withdraw…'), openQueuedChanges]
      : [openQueuedChanges];

  const withdrawQueued = ({ target, mark }: { target: RowTarget; mark: QueuedMark }) => {
    // Every device of the change (a batch's: all of them) has its commands read again.
    const deviceIds = waitingChange(mark)?.deviceIds ?? [target.device.deviceId];
    setNotice(undefined);
    withdraw.mutate(
      { id: mark.changeId, deviceIds },
      {
        onSuccess: () =>
          setNotice(`Withdrawn on ${target.device.name}: nothing of that change was sent.`),
        onError: (error) =>
          setNotice(
            `Not withdrawn: ${isApiError(error) ? problemWords(error, zoneOf(target)) : 'the request failed; try again.'}`,
          ),
      },
    );
  };
  const withdrawing = confirmWithdraw && waitingChange(confirmWithdraw.mark);

  const selectedLock =
    selected && selectedRecord
      ? editLock(
          {
            status: selectedRecord.status,
            startMs: Date.parse(selectedRecord.startTime),
            queuedCancel: queued.cancelsByCommand.get(selectedRecord.id),
          },
          nowMs,
        )
      : null;

  return (
    // Ctrl+Z reaches it from the grid and the panels; text fields keep their own undo.
    <section
      ref={pageRef}
      aria-labelledby="timeline-title"
      className="timeline-page"
      onKeyDown={onUndoKey}
    >
      <div className="timeline-head">
        <h1 id="timeline-title">Timeline</h1>
        <div className="timeline-filters">
          <label>
            Filter devices{' '}
            <input
              type="search"
              value={filter}
              placeholder="Name or ID"
              onChange={(event) => onSearchChange({ q: event.target.value })}
            />
          </label>
          <fieldset>
            <legend>Sites</legend>
            {sites.map((site) => (
              <label key={site.siteId}>
                <input
                  type="checkbox"
                  checked={!hiddenSites.has(site.siteId)}
                  onChange={(event) => {
                    const next = new Set(hiddenSites);
                    if (event.target.checked) next.delete(site.siteId);
                    else next.add(site.siteId);
                    onSearchChange({ hiddenSiteIds: [...next] });
                  }}
                />{' '}
                {/* Its zone is written on its header row in the grid. */}
                {site.name}
              </label>
            ))}
          </fieldset>
          <label>
            <input
              type="checkbox"
              checked={showCancelled}
              onChange={(event) => onSearchChange({ showCancelled: event.target.checked })}
            />{' '}
            Show cancelled
          </label>
          <label>
            <input
              type="checkbox"
              checked={utc}
              onChange={(event) => onSearchChange({ utc: event.target.checked })}
            />{' '}
            Show times in UTC
          </label>
          <label>
            Snap to{' '}
            <select
              value={search.snapMinutes}
              onChange={(event) => {
                const minutes = SNAP_MINUTES.find((m) => m === Number(event.target.value));
                if (minutes) onSearchChange({ snapMinutes: minutes });
              }}
            >
              {SNAP_MINUTES.map((minutes) => (
                <option key={minutes} value={minutes}>
                  {minutes === 60 ? '1 h' : `${minutes} min`}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      {clockNotice}
      {replaceFailure ? (
        <div role="alert" className="notice notice-error">
          {replaceFailure.oldCancelled ? (
            <>
              <p>
                The new command was refused:{' '}
                {submitErrorWords(replaceFailure.error, zoneOf(replaceFailure.target))} The old
                command {replaceFailure.old.id} is already cancelled.
              </p>
              <button
                type="button"
                onClick={() => {
                  const { old, target } = replaceFailure;
                  setReplaceFailure(undefined);
                  submitFor(target.device, sameCommand(old), target.site.timeZone);
                }}
              >
                Restore the old command
              </button>
            </>
          ) : (
            <p>
              The change was not made:{' '}
              {submitErrorWords(replaceFailure.error, zoneOf(replaceFailure.target))} The old
              command {replaceFailure.old.id} is unchanged.
            </p>
          )}
          {laterWindow(replaceFailure.error, replaceFailure.next) ? (
            <button
              type="button"
              onClick={() => {
                const { old, next, target, error } = replaceFailure;
                const later = laterWindow(error, next);
                setReplaceFailure(undefined);
                if (later)
                  setForm({ target, ...later, powerControl: next.powerControl, replacing: old });
              }}
            >
              Choose a later window
            </button>
          ) : null}
          <button type="button" onClick={() => setReplaceFailure(undefined)}>
            Dismiss
          </button>
        </div>
      ) : null}
      {!form && submit.isError ? (
        <div role="alert" className="notice notice-error">
          {submitErrorWords(submit.error, 'UTC')}
        </div>
      ) : null}
      <TimelineView
        // One line of fixed height whatever it says, so an outcome never moves the toolbar or the
        // grid; the whole text stays readable in its title and for assistive technology.
        notice={
          <div role="status" className="timeline-notice" title={noticeText || undefined}>
            {noticeText}
          </div>
        }
        sites={shownSites}
        filter={filter}
        barsByDevice={shownBars}
        overlapIndex={overlapIndex}
        nowMs={nowMs}
        utc={utc}
        snapMs={snapMs}
        selectedBarId={selected?.record.id}
        onViewportChange={setViewport}
        firstView={firstView}
        onViewMoved={(view) => onSearchChange(viewSearch(view))}
        changeRefusal={canChange ? undefined : VIEWER_REFUSAL_WORDS}
        barMenuActions={barMenuActions}
        ghostsByDevice={queued.ghostsByDevice}
        ghostMenuActions={queuedMenuActions}
        onCopyBar={copyWindow}
        onPaste={paste}
        onCreateWindow={openCreate}
        onNewCommand={(target, atMs) =>
          openCreate(target, { startMs: atMs, endMs: atMs + 3_600_000 })
        }
        onSelectBar={(target, bar: Bar) => {
          cancel.reset();
          setSelected({ target, record: bar.record });
        }}
        onMoveBar={(target, bar, window) =>
          canChange
            ? void runReplace(target, bar.record, {
                powerControl: bar.record.powerControl,
                startTime: new Date(window.startMs).toISOString(),
                endTime: new Date(window.endMs).toISOString(),
              })
            : setNotice(dispatchRefusal)
        }
      />
      {selected && selectedRecord ? (
        <DetailPanel
          record={selectedRecord}
          device={selected.target.device}
          siteId={selected.target.site.siteId}
          timeZone={zoneOf(selected.target)}
          cancelling={cancel.isPending}
          cancelError={cancel.isError ? problemWords(cancel.error) : undefined}
          canChange={canChange}
          editLockWords={
            selectedLock
              ? editLockWords(selectedRecord.id, selectedLock, zoneOf(selected.target))
              : undefined
          }
          onCancel={() =>
            cancelRecord(selectedRecord, selected.target.device.name, selected.target.site.timeZone)
          }
          onChange={() => openReplace({ target: selected.target, record: selectedRecord })}
          onClose={() => setSelected(undefined)}
        />
      ) : null}
      {replaceLater ? (
        <ReplaceLaterConfirm
          oldId={replaceLater.old.id}
          deviceName={replaceLater.target.device.name}
          goesAt={replaceLater.goesAt}
          timeZone={zoneOf(replaceLater.target)}
          onDismiss={() => {
            setReplaceLater(undefined);
            setNotice(`Command ${replaceLater.old.id} kept as it is; nothing was sent.`);
          }}
          onConfirm={() => {
            setReplaceLater(undefined);
            const { target, old, next } = replaceLater;
            void runReplace(target, old, next, 'queue');
          }}
        />
      ) : null}
      {confirmCancel ? (
        <CancelConfirm
          record={confirmCancel.record}
          deviceName={confirmCancel.target.device.name}
          timeZone={zoneOf(confirmCancel.target)}
          onDismiss={() => setConfirmCancel(undefined)}
          onConfirm={() => {
            setConfirmCancel(undefined);
            cancelRecord(
              confirmCancel.record,
              confirmCancel.target.device.name,
              confirmCancel.target.site.timeZone,
            );
          }}
        />
      ) : null}
      {confirmWithdraw ? (
        <WithdrawChangeDialog
          change={withdrawing}
          deviceName={confirmWithdraw.target.device.name}
          timeZone={zoneOf(confirmWithdraw.target)}
          onDismiss={() => setConfirmWithdraw(undefined)}
          onConfirm={() => {
            setConfirmWithdraw(undefined);
            withdrawQueued(confirmWithdraw);
          }}
        />
      ) : null}
      {!selected && cancel.isError ? (
        <div role="alert" className="notice notice-error">
          {problemWords(cancel.error)}
        </div>
      ) : null}
      {duplicating ? (
        <DuplicateDialog
          record={duplicating.record}
          source={duplicating.target}
          sites={sites}
          timeZone={zoneOf(duplicating.target)}
          nowMs={nowMs}
          busy={copySubmit.isPending}
          onDismiss={() => setDuplicating(undefined)}
          onSend={(accepted, refused) => {
            const { target, record } = duplicating;
            setDuplicating(undefined);
            void sendCopies(accepted, record.powerControl, refused, zoneOf(target));
          }}
        />
      ) : null}
      {form ? (
        <CommandFormDialog
          title={form.replacing ? `Change command ${form.replacing.id}` : 'New command'}
          site={form.target.site}
          device={form.target.device}
          timeZone={zoneOf(form.target)}
          startMs={form.startMs}
          endMs={form.endMs}
          {...(form.powerControl ? { powerControl: form.powerControl } : {})}
          {...(form.replacing ? { replacingId: form.replacing.id } : {})}
          nowMs={nowMs}
          overlapIndex={overlapIndex(form.target.device.deviceId)}
          submitLabel={form.replacing ? 'Replace command' : 'Submit command'}
          busy={submit.isPending}
          status={
            <OutcomeCheckingStatus
              checking={submit.outcomeChecking}
              what="the command"
              onStop={submit.stopChecking}
            />
          }
          error={submit.isError ? submitErrorWords(submit.error, zoneOf(form.target)) : undefined}
          onDismiss={() => setForm(undefined)}
          onSubmit={(command) => {
            if (form.replacing) void runReplace(form.target, form.replacing, command);
            else submitFor(form.target.device, command, form.target.site.timeZone);
          }}
        />
      ) : null}
    </section>
  );
}
