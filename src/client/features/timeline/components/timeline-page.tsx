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
  const state = useTimelinePageState({ sites, dispatchRefusal, search });
  // The dialogs and notices open on these; as consts they narrow inside the callbacks too.
  const {
    form,
    selected,
    selectedRecord,
    replaceFailure,
    replaceLater,
    confirmCancel,
    confirmWithdraw,
    duplicating,
  } = state;

  const pageRef = useRef<HTMLElement>(null);
  useFillViewport(pageRef, 12);

  return (
    // Ctrl+Z reaches it from the grid and the panels; text fields keep their own undo.
    <section
      ref={pageRef}
      aria-labelledby="timeline-title"
      className="timeline-page"
      onKeyDown={state.onUndoKey}
    >
      <div className="timeline-head">
        <h1 id="timeline-title">Timeline</h1>
        <div className="timeline-filters">
          <label>
            Filter devices{' '}
            <input
              type="search"
              value={state.filter}
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
                  checked={!state.hiddenSites.has(site.siteId)}
                  onChange={(event) => {
                    const next = new Set(state.hiddenSites);
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
              checked={state.showCancelled}
              onChange={(event) => onSearchChange({ showCancelled: event.target.checked })}
            />{' '}
            Show cancelled
          </label>
          <label>
            <input
              type="checkbox"
              checked={state.utc}
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
                {submitErrorWords(replaceFailure.error, state.zoneOf(replaceFailure.target))} The
                old command {replaceFailure.old.id} is already cancelled.
              </p>
              <button
                type="button"
                onClick={() => {
                  const { old, target } = replaceFailure;
                  state.setReplaceFailure(undefined);
                  state.submitFor(target.device, sameCommand(old), target.site.timeZone);
                }}
              >
                Restore the old command
              </button>
            </>
          ) : (
            <p>
              The change was not made:{' '}
              {submitErrorWords(replaceFailure.error, state.zoneOf(replaceFailure.target))} The old
              command {replaceFailure.old.id} is unchanged.
            </p>
          )}
          {laterWindow(replaceFailure.error, replaceFailure.next) ? (
            <button
              type="button"
              onClick={() => {
                const { old, next, target, error } = replaceFailure;
                const later = laterWindow(error, next);
                state.setReplaceFailure(undefined);
                if (later)
                  state.setForm({
                    target,
                    ...later,
                    powerControl: next.powerControl,
                    replacing: old,
                  });
              }}
            >
              Choose a later window
            </button>
          ) : null}
          <button type="button" onClick={() => state.setReplaceFailure(undefined)}>
            Dismiss
          </button>
        </div>
      ) : null}
      {!form && state.submit.isError ? (
        <div role="alert" className="notice notice-error">
          {submitErrorWords(state.submit.error, 'UTC')}
        </div>
      ) : null}
      <TimelineView
        // Fixed height whatever it says, so an outcome never moves the grid; the full text is in its title.
        notice={
          <div role="status" className="timeline-notice" title={state.noticeText || undefined}>
            {state.noticeText}
          </div>
        }
        sites={state.shownSites}
        filter={state.filter}
        barsByDevice={state.shownBars}
        overlapIndex={state.overlapIndex}
        nowMs={state.nowMs}
        utc={state.utc}
        snapMs={state.snapMs}
        selectedBarId={selected?.record.id}
        onViewportChange={state.setViewport}
        firstView={state.firstView}
        onViewMoved={(view) => onSearchChange(viewSearch(view))}
        changeRefusal={state.canChange ? undefined : VIEWER_REFUSAL_WORDS}
        barMenuActions={state.barMenuActions}
        ghostsByDevice={state.ghostsByDevice}
        ghostMenuActions={state.queuedMenuActions}
        onCopyBar={state.copyWindow}
        onPaste={state.paste}
        onCreateWindow={state.openCreate}
        onNewCommand={(target, atMs) =>
          state.openCreate(target, { startMs: atMs, endMs: atMs + 3_600_000 })
        }
        onSelectBar={(target, bar: Bar) => {
          state.cancel.reset();
          state.setSelected({ target, record: bar.record });
        }}
        onMoveBar={(target, bar, window) =>
          state.canChange
            ? void state.runReplace(target, bar.record, {
                powerControl: bar.record.powerControl,
                startTime: new Date(window.startMs).toISOString(),
                endTime: new Date(window.endMs).toISOString(),
              })
            : state.setNotice(dispatchRefusal)
        }
      />
      {selected && selectedRecord ? (
        <DetailPanel
          record={selectedRecord}
          device={selected.target.device}
          siteId={selected.target.site.siteId}
          timeZone={state.zoneOf(selected.target)}
          cancelling={state.cancel.isPending}
          cancelError={state.cancel.isError ? problemWords(state.cancel.error) : undefined}
          canChange={state.canChange}
          editLockWords={
            state.selectedLock
              ? editLockWords(selectedRecord.id, state.selectedLock, state.zoneOf(selected.target))
              : undefined
          }
          onCancel={() =>
            state.cancelRecord(
              selectedRecord,
              selected.target.device.name,
              selected.target.site.timeZone,
            )
          }
          onChange={() => state.openReplace({ target: selected.target, record: selectedRecord })}
          onClose={() => state.setSelected(undefined)}
        />
      ) : null}
      {replaceLater ? (
        <ReplaceLaterConfirm
          oldId={replaceLater.old.id}
          deviceName={replaceLater.target.device.name}
          goesAt={replaceLater.goesAt}
          timeZone={state.zoneOf(replaceLater.target)}
          onDismiss={() => {
            state.setReplaceLater(undefined);
            state.setNotice(`Command ${replaceLater.old.id} kept as it is; nothing was sent.`);
          }}
          onConfirm={() => {
            state.setReplaceLater(undefined);
            const { target, old, next } = replaceLater;
            void state.runReplace(target, old, next, 'queue');
          }}
        />
      ) : null}
      {confirmCancel ? (
        <CancelConfirm
          record={confirmCancel.record}
          deviceName={confirmCancel.target.device.name}
          timeZone={state.zoneOf(confirmCancel.target)}
          onDismiss={() => state.setConfirmCancel(undefined)}
          onConfirm={() => {
            state.setConfirmCancel(undefined);
            state.cancelRecord(
              confirmCancel.record,
              confirmCancel.target.device.name,
              confirmCancel.target.site.timeZone,
            );
          }}
        />
      ) : null}
      {confirmWithdraw ? (
        <WithdrawChangeDialog
          change={state.withdrawing}
          deviceName={confirmWithdraw.target.device.name}
          timeZone={state.zoneOf(confirmWithdraw.target)}
          onDismiss={() => state.setConfirmWithdraw(undefined)}
          onConfirm={() => {
            state.setConfirmWithdraw(undefined);
            state.withdrawQueued(confirmWithdraw);
          }}
        />
      ) : null}
      {!selected && state.cancel.isError ? (
        <div role="alert" className="notice notice-error">
          {problemWords(state.cancel.error)}
        </div>
      ) : null}
      {duplicating ? (
        <DuplicateDialog
          record={duplicating.record}
          source={duplicating.target}
          sites={sites}
          timeZone={state.zoneOf(duplicating.target)}
          nowMs={state.nowMs}
          busy={state.copySubmit.isPending}
          onDismiss={() => state.setDuplicating(undefined)}
          onSend={(accepted, refused) => {
            const { target, record } = duplicating;
            state.setDuplicating(undefined);
            void state.sendCopies(accepted, record.powerControl, refused, state.zoneOf(target));
          }}
        />
      ) : null}
      {form ? (
        <CommandFormDialog
          title={form.replacing ? `Change command ${form.replacing.id}` : 'New command'}
          site={form.target.site}
          device={form.target.device}
          timeZone={state.zoneOf(form.target)}
          startMs={form.startMs}
          endMs={form.endMs}
          {...(form.powerControl ? { powerControl: form.powerControl } : {})}
          {...(form.replacing ? { replacingId: form.replacing.id } : {})}
          nowMs={state.nowMs}
          overlapIndex={state.overlapIndex(form.target.device.deviceId)}
          submitLabel={form.replacing ? 'Replace command' : 'Submit command'}
          busy={state.submit.isPending}
          status={
            <OutcomeCheckingStatus
              checking={state.submit.outcomeChecking}
              what="the command"
              onStop={state.submit.stopChecking}
            />
          }
          error={
            state.submit.isError
              ? submitErrorWords(state.submit.error, state.zoneOf(form.target))
              : undefined
          }
          onDismiss={() => state.setForm(undefined)}
          onSubmit={(command) => {
            if (form.replacing) void state.runReplace(form.target, form.replacing, command);
            else state.submitFor(form.target.device, command, form.target.site.timeZone);
          }}
        />
      ) : null}
    </section>
  );
}
