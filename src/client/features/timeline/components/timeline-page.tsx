import { useRef, type ReactNode } from 'react';
import type { DeviceCommand } from '#domain/command.ts';
import type { Site } from '#domain/device.ts';
import type { WindowMs } from '#domain/time-window.ts';
import { BudgetTooTightDetailsSchema } from '#domain/errors.ts';
import { OutcomeCheckingStatus } from '#client/commands/components/outcome-checking-status.tsx';
import { sameCommand } from '#client/commands/lib/undo.ts';
import { WithdrawChangeDialog } from '#client/commands/components/withdraw-change-dialog.tsx';
import { useFillViewport } from '../hooks/use-fill-viewport.ts';
import { useTimelinePageState, VIEWER_REFUSAL_WORDS } from '../hooks/use-timeline-page-state.ts';
import type { Bar } from '../lib/bars.ts';
import { submitErrorWords } from '../lib/submit-error-words.ts';
import { SNAP_MINUTES, viewSearch, type TimelineSearch } from '../lib/timeline-search.ts';
import { CancelConfirm } from './cancel-confirm.tsx';
import { ReplaceLaterConfirm } from './replace-later-confirm.tsx';
import { CommandFormDialog } from './command-form-dialog.tsx';
import { DetailPanel } from './detail-panel.tsx';
import { DuplicateDialog } from './duplicate-dialog.tsx';
import { TimelineView } from './timeline-view.tsx';
import { isApiError } from '#client/lib/api-error.ts';
import { problemWords } from '#client/lib/problem-words.ts';
import { editLockWords } from '../lib/edit-lock.ts';

/** After a `budget_too_tight` refusal: the window moved to the earliest start allowed, rounded up to the minute. */
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

/**
 * The timeline editor page; its state and actions are `useTimelinePageState`'s, its view state
 * lives in `search` (the URL). With `dispatchRefusal` it only reads and says why on a change.
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
  search: TimelineSearch;
  onSearchChange: (next: Partial<TimelineSearch>) => void;
  /** The clock notices of the sites on a fixed UTC offset, from the page, under the header. */
  clockNotice?: ReactNode;
}) {
  const {
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
    ghostsByDevice,
    overlapIndex,
    zoneOf,
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
    openCreate,
    openReplace,
    copyWindow,
    paste,
    barMenuActions,
    queuedMenuActions,
  } = useTimelinePageState({ sites, dispatchRefusal, search });

  const pageRef = useRef<HTMLElement>(null);
  useFillViewport(pageRef, 12);

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
        // Fixed height whatever it says, so an outcome never moves the grid; the full text is in its title.
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
        ghostsByDevice={ghostsByDevice}
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
