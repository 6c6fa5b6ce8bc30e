import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { DeviceCommand, StatusRecord } from '../../../../domain/command.ts';
import type { Device, Site } from '../../../../domain/device.ts';
import type { WindowMs } from '../../../../domain/time-window.ts';
import { cancelCommand, useCancelCommand } from '../../../commands/api/cancel-command.ts';
import { getCommandStatus } from '../../../commands/api/get-command-status.ts';
import { submitCommand, useSubmitCommand } from '../../../commands/api/submit-command.ts';
import { useUndo } from '../../../commands/api/undo-change.ts';
import type { UndoableChange } from '../../../commands/lib/undo.ts';
import { useUndoKey } from '../hooks/use-undo-key.ts';
import { invalidateDeviceCommands } from '../../../commands/lib/command-caches.ts';
import { useFillViewport } from '../hooks/use-fill-viewport.ts';
import { useTimelineBars } from '../hooks/use-timeline-bars.ts';
import type { Bar } from '../lib/bars.ts';
import {
  replaceCommand,
  restoreCommand,
  type ReplaceOutcome,
  type ReplaceStep,
} from '../lib/replace-sequence.ts';
import { DEFAULT_SNAP_MS } from '../lib/snap.ts';
import { submitErrorWords } from '../lib/submit-error-words.ts';
import { CommandFormDialog } from './command-form-dialog.tsx';
import { DetailPanel } from './detail-panel.tsx';
import type { RowTarget, TimelineViewport } from '../lib/timeline-types.ts';
import { TimelineView } from './timeline-view.tsx';
import { problemWords } from '../../../lib/problem-words.ts';

const SNAP_CHOICES = [
  { label: '1 min', ms: 60_000 },
  { label: '5 min', ms: DEFAULT_SNAP_MS },
  { label: '15 min', ms: 15 * 60_000 },
  { label: '1 h', ms: 3_600_000 },
];

type FormState = {
  target: RowTarget;
  startMs: number;
  endMs: number;
  powerControl?: StatusRecord['powerControl'];
  replacing?: StatusRecord;
};

const REPLACE_STEP_WORDS: Record<ReplaceStep, string> = {
  cancelling: 'Step 1 of 3: cancelling the current command…',
  waiting: 'Step 2 of 3: waiting until it is cancelled…',
  submitting: 'Step 3 of 3: submitting the new command…',
};

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The timeline editor page: bound sites' devices as rows, command windows as bars,
 * drag to schedule, details in a drawer with cancel, replace by drag or edit. It fills the window
 * below the navigation, full width and full height; the grid takes what the toolbar leaves. With
 * `dispatchRefusal` (a role that may only read) it reads only: no form, drawer action or undo
 * opens, and a drag or a new command says why instead.
 */
export function TimelinePage({
  sites,
  dispatchRefusal,
  clockNotice,
}: {
  sites: readonly Site[];
  /** Why the operator may not schedule or cancel, in words; undefined when they may. */
  dispatchRefusal?: string | undefined;
  /** The clock notices of the sites on a fixed UTC offset, from the page, under the header. */
  clockNotice?: ReactNode;
}) {
  const canChange = dispatchRefusal === undefined;
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState('');
  const [hiddenSites, setHiddenSites] = useState<ReadonlySet<string>>(new Set());
  const [utc, setUtc] = useState(false);
  const [snapMs, setSnapMs] = useState(DEFAULT_SNAP_MS);
  const [nowMs, setNowMs] = useState(() => Date.now());
  const [viewport, setViewport] = useState<TimelineViewport>();
  const [selected, setSelected] = useState<{ target: RowTarget; record: StatusRecord }>();
  const [form, setForm] = useState<FormState>();
  const [notice, setNotice] = useState<string>();
  const [replaceStep, setReplaceStep] = useState<ReplaceStep>();
  const [replaceFailure, setReplaceFailure] = useState<{
    old: StatusRecord;
    target: RowTarget;
    outcome: Extract<ReplaceOutcome, { ok: false }>;
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
  const { barsByDevice, overlapIndex, failedSlots } = useTimelineBars(viewport);
  const zoneOf = (target: RowTarget) => (utc ? 'UTC' : target.site.timeZone);

  // The selected record follows the polled history while its row is in view.
  const selectedRecord = useMemo(() => {
    if (!selected) return undefined;
    const live = barsByDevice
      .get(selected.target.device.deviceId)
      ?.find((bar) => bar.id === selected.record.id)?.record;
    return live ?? selected.record;
  }, [selected, barsByDevice]);

  // The last schedule change made here, for Ctrl+Z; each is offered as Undo in a toast too.
  const [lastChange, setLastChange] = useState<{ change: UndoableChange; timeZone: string }>();
  const { undo, offerUndo } = useUndo();
  const changed = (change: UndoableChange, title: string, timeZone: string) => {
    setLastChange({ change, timeZone });
    offerUndo(change, title, timeZone);
  };
  const onUndoKey = useUndoKey(
    useCallback(() => {
      if (!lastChange) return;
      setLastChange(undefined);
      void undo(lastChange.change, lastChange.timeZone);
    }, [lastChange, undo]),
  );

  const submit = useSubmitCommand();
  const submitFor = (device: Device, command: DeviceCommand, timeZone: string) =>
    submit.mutate(
      { deviceId: device.deviceId, command },
      {
        onSuccess: (response, { idempotencyKey }) => {
          setForm(undefined);
          setNotice(`Command ${response.id} submitted for ${device.name}.`);
          changed(
            {
              kind: 'submit',
              deviceId: device.deviceId,
              commandId: response.id,
              key: idempotencyKey,
            },
            `Command ${response.id} submitted`,
            timeZone,
          );
        },
      },
    );

  const cancel = useCancelCommand();
  const cancelRecord = (record: StatusRecord, timeZone: string) =>
    cancel.mutate(
      { deviceId: record.deviceId, commandId: record.id },
      {
        onSuccess: (cancelled, { idempotencyKey }) => {
          setNotice(`Command ${cancelled.id} cancelled.`);
          changed(
            { kind: 'cancel', record: cancelled, key: idempotencyKey },
            `Command ${cancelled.id} cancelled`,
            timeZone,
          );
        },
      },
    );

  const runReplace = async (target: RowTarget, old: StatusRecord, next: DeviceCommand) => {
    setForm(undefined);
    setReplaceFailure(undefined);
    setNotice(undefined);
    // One intent, two changes: each keeps its own key for every try of this replace.
    const cancelKey = crypto.randomUUID();
    const submitKey = crypto.randomUUID();
    const outcome = await replaceCommand(
      old,
      next,
      {
        cancel: (deviceId, commandId) =>
          cancelCommand(deviceId, commandId, { idempotencyKey: cancelKey }),
        status: (deviceId, commandId) => getCommandStatus(deviceId, commandId),
        submit: (deviceId, command) =>
          submitCommand(deviceId, command, { idempotencyKey: submitKey }),
        pause,
      },
      setReplaceStep,
    );
    setReplaceStep(undefined);
    // The replace ran its own calls, so the device is read again here, on every screen.
    await invalidateDeviceCommands(queryClient, [old.deviceId]);
    if (outcome.ok) {
      setSelected(undefined);
      setNotice(`Command ${old.id} replaced by ${outcome.submitted.id} on ${target.device.name}.`);
      changed(
        {
          kind: 'replace',
          old,
          next: { deviceId: old.deviceId, commandId: outcome.submitted.id },
          key: submitKey,
        },
        `Command ${old.id} replaced by ${outcome.submitted.id}`,
        target.site.timeZone,
      );
    } else setReplaceFailure({ old, target, outcome });
  };

  const noticeText = `${replaceStep ? REPLACE_STEP_WORDS[replaceStep] : (notice ?? '')}${
    failedSlots > 0 ? ` Some history could not be loaded (${failedSlots}); retrying.` : ''
  }`;

  const openCreate = (target: RowTarget, window: WindowMs) => {
    if (!canChange) return setNotice(dispatchRefusal);
    submit.reset();
    setNotice(undefined);
    setForm({ target, ...window });
  };

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
              onChange={(event) => setFilter(event.target.value)}
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
                    setHiddenSites(next);
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
              checked={utc}
              onChange={(event) => setUtc(event.target.checked)}
            />{' '}
            Show times in UTC
          </label>
          <label>
            Snap to{' '}
            <select value={snapMs} onChange={(event) => setSnapMs(Number(event.target.value))}>
              {SNAP_CHOICES.map((choice) => (
                <option key={choice.ms} value={choice.ms}>
                  {choice.label}
                </option>
              ))}
            </select>
          </label>
        </div>
      </div>
      {clockNotice}
      {replaceFailure ? (
        <div role="alert" className="notice notice-error">
          {replaceFailure.outcome.oldCancelled ? (
            <>
              <p>
                The new command was refused:{' '}
                {submitErrorWords(replaceFailure.outcome.error, zoneOf(replaceFailure.target))} The
                old command {replaceFailure.old.id} is already cancelled.
              </p>
              <button
                type="button"
                onClick={() => {
                  const { old, target } = replaceFailure;
                  setReplaceFailure(undefined);
                  submitFor(target.device, restoreCommand(old), target.site.timeZone);
                }}
              >
                Restore the old command
              </button>
            </>
          ) : (
            <p>
              The change was not made:{' '}
              {submitErrorWords(replaceFailure.outcome.error, zoneOf(replaceFailure.target))} The
              old command {replaceFailure.old.id} is unchanged.
            </p>
          )}
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
        barsByDevice={barsByDevice}
        overlapIndex={overlapIndex}
        nowMs={nowMs}
        utc={utc}
        snapMs={snapMs}
        selectedBarId={selected?.record.id}
        onViewportChange={setViewport}
        readOnly={!canChange}
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
          onCancel={() => cancelRecord(selectedRecord, selected.target.site.timeZone)}
          onChange={() =>
            setForm({
              target: selected.target,
              startMs: Date.parse(selectedRecord.startTime),
              endMs: Date.parse(selectedRecord.endTime),
              powerControl: selectedRecord.powerControl,
              replacing: selectedRecord,
            })
          }
          onClose={() => setSelected(undefined)}
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
