import { useCallback, useEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { isActiveStatus, isCancellable } from '#domain/command.ts';
import type { Site } from '#domain/device.ts';
import type { WindowMs } from '#domain/time-window.ts';
import {
  queuedChangesQueryOptions,
  useWithdrawChange,
} from '#client/commands/api/queued-changes.ts';
import type { MenuAction } from '#client/components/menu.tsx';
import { showToast } from '#client/components/toast.tsx';
import { isApiError } from '#client/lib/api-error.ts';
import { deviceHistoryPath } from '#client/lib/device-paths.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { problemWords } from '#client/lib/problem-words.ts';
import type { Bar } from '../lib/bars.ts';
import { checkCopies, copyOf, pasteCopies, type CopiedWindow } from '../lib/copy-windows.ts';
import { editLock, editLockWords } from '../lib/edit-lock.ts';
import type { GhostWindow, QueuedMark } from '../lib/ghosts.ts';
import type { DeviceOverlapIndex } from '../lib/overlap-index.ts';
import {
  overlapIndexWithQueued,
  queuedWindowsOf,
  withQueuedCancels,
} from '../lib/queued-windows.ts';
import { withoutCancelled } from '../lib/shown-bars.ts';
import { firstViewOf, type TimelineSearch } from '../lib/timeline-search.ts';
import type { FormState, RowTarget, TimelineViewport, WindowOfRow } from '../lib/timeline-types.ts';
import { windowLengthWords } from '../lib/window-words.ts';
import { useTimelineBars } from './use-timeline-bars.ts';
import { useTimelineChanges } from './use-timeline-changes.ts';

/** What a viewer is told when a drag, a key or a paste would change something. */
export const VIEWER_REFUSAL_WORDS =
  'Viewers can look but not schedule: ask for the dispatcher role.';

/**
 * The timeline page's state and actions (components/timeline-page.tsx renders it); sent
 * changes and their notice are `useTimelineChanges`'s. With `dispatchRefusal` no change opens.
 */
export function useTimelinePageState({
  sites,
  dispatchRefusal,
  search,
}: {
  sites: readonly Site[];
  dispatchRefusal: string | undefined;
  search: TimelineSearch;
}) {
  const canChange = dispatchRefusal === undefined;
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
  const [duplicating, setDuplicating] = useState<WindowOfRow>();
  const [copied, setCopied] = useState<CopiedWindow>();

  useEffect(() => {
    const timer = setInterval(() => setNowMs(Date.now()), 10_000);
    return () => clearInterval(timer);
  }, []);

  const shownSites = useMemo(
    () => sites.filter((site) => !hiddenSites.has(site.siteId)),
    [sites, hiddenSites],
  );
  const { barsByDevice, overlapIndex: commandIndex, failedSlots } = useTimelineBars(viewport);
  const changes = useTimelineChanges({ setForm, setSelected, failedSlots });
  const { setNotice, submit, cancel, copySubmit, sendCopies } = changes;
  // Changes waiting for their devices' budget: drawn as queued until they are sent.
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
  // A queued window blocks like an active command's, before anything is sent.
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

  const openCreate = (target: RowTarget, window: WindowMs) => {
    if (!canChange) return setNotice(dispatchRefusal);
    submit.reset();
    setNotice(undefined);
    setForm({ target, ...window });
  };

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

  return {
    canChange,
    filter,
    utc,
    showCancelled,
    snapMs,
    hiddenSites,
    nowMs,
    firstView,
    setViewport,
    selected,
    setSelected,
    selectedRecord,
    selectedLock,
    form,
    setForm,
    confirmCancel,
    setConfirmCancel,
    duplicating,
    setDuplicating,
    confirmWithdraw,
    setConfirmWithdraw,
    withdrawing,
    withdrawQueued,
    shownSites,
    shownBars,
    ghostsByDevice: queued.ghostsByDevice,
    overlapIndex,
    zoneOf,
    ...changes,
    openCreate,
    openReplace,
    copyWindow,
    paste,
    barMenuActions,
    queuedMenuActions,
  };
}
