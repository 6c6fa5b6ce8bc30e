import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { applyCancellation, type StatusRecord } from '#domain/command.ts';
import { commandWords } from '#client/commands/lib/command-words.ts';
import { isQueuedAnswer, queuedCancelOf, type QueuedChangeStatus } from '#domain/queued-change.ts';
import { useCancelCommand } from '#client/commands/api/cancel-command.ts';
import { useUndo } from '#client/commands/api/undo-change.ts';
import { useDeviceHistory } from '#client/commands/api/get-command-history.ts';
import {
  queuedChangesQueryOptions,
  useWithdrawChange,
} from '#client/commands/api/queued-changes.ts';
import { WithdrawChangeDialog } from '#client/commands/components/withdraw-change-dialog.tsx';
import { WithdrawOutcome } from '#client/commands/components/withdraw-outcome.tsx';
import { QueuedChangeLine } from '#client/commands/components/queued-change-line.tsx';
import { ConfirmDialog } from '#client/components/confirm-dialog.tsx';
import { QueryView } from '#client/components/query-view.tsx';
import type { ApiError } from '#client/lib/api-error.ts';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { formatInZone, formatWindowInZone, zoneLabel } from '#client/lib/time.ts';
import { deviceCommandsRange } from '../lib/history-range.ts';
import { CommandRow } from './command-row.tsx';
import { problemSupportDetail, problemWords } from '#client/lib/problem-words.ts';
import { ColumnHeads } from '#client/components/column-heads.tsx';

function newestFirst(a: StatusRecord, b: StatusRecord): number {
  return (
    Date.parse(b.receivedAt) - Date.parse(a.receivedAt) ||
    Date.parse(b.startTime) - Date.parse(a.startTime)
  );
}

/** Why a cancel failed; a conflict means the command is final (docs/upstream.md, Commands). */
function CancelError({
  commandId,
  error,
  timeZone,
}: {
  commandId: string;
  error: ApiError;
  timeZone: string;
}) {
  const conflict = error.code === 'not_cancellable' || error.status === 409;
  return (
    <div role="alert" className="notice notice-error">
      <p>
        <strong>Command {commandId} was not cancelled.</strong>{' '}
        {error.code === 'change_already_queued'
          ? problemWords(error, timeZone)
          : conflict
            ? 'It has already reached a final status: a completed command cannot be cancelled, and a cancelled one stays cancelled.'
            : 'Try again in a moment.'}
      </p>
      <details className="support-detail">
        <summary>Details for support</summary>
        <p>{problemSupportDetail(error)}</p>
      </details>
    </div>
  );
}

/** The device's commands from about a day ago to 29 days ahead, newest first; Cancel asks first, only when `canCancel`. */
export function CommandTable({
  deviceId,
  deviceName = deviceId,
  timeZone,
  canCancel = true,
}: {
  deviceId: string;
  deviceName?: string;
  timeZone: string;
  /** False when the operator's role may not cancel: no Cancel (nor its Undo) is offered. */
  canCancel?: boolean;
}) {
  const [range] = useState(() => deviceCommandsRange(Date.now()));
  const history = useDeviceHistory(deviceId, range);
  const cancel = useCancelCommand();
  const { offerUndo } = useUndo();
  const [cancelTarget, setCancelTarget] = useState<StatusRecord | null>(null);
  // The device's waiting changes: a command whose cancel waits offers Withdraw, not Cancel.
  const waiting = useQuery(queuedChangesQueryOptions({ waiting: 'true', deviceId }));
  const withdraw = useWithdrawChange();
  const [withdrawTarget, setWithdrawTarget] = useState<QueuedChangeStatus>();
  const waitingChanges = waiting.data?.changes ?? [];

  const rangeWords = `${formatInZone(range.startMs, timeZone)} to ${formatInZone(range.endMs, timeZone)}`;

  const body = (
    <QueryView
      query={history}
      loading="Loading the device's commands…"
      failed="Could not load the device's commands."
    >
      {({ commands }) =>
        commands.length === 0 ? (
          <p className="empty-state">
            No commands for this device from {rangeWords} (site time). Submit one with the form
            above; it appears here with its status.
          </p>
        ) : (
          <div className="table-scroll">
            <table>
              <caption className="visually-hidden">
                Commands of {deviceId} from {rangeWords}, site time, newest first
              </caption>
              <ColumnHeads
                columns={[
                  'Command ID',
                  <>Window ({zoneLabel(timeZone)})</>,
                  'Power control',
                  'Status',
                  <span className="visually-hidden">Actions</span>,
                ]}
              />
              <tbody>
                {[...commands].sort(newestFirst).map((record) => {
                  const queuedCancel = queuedCancelOf(waitingChanges, record.id);
                  return (
                    <CommandRow
                      key={record.id}
                      record={record}
                      timeZone={timeZone}
                      knownAtMs={history.dataUpdatedAt}
                      cancelling={cancel.isPending && cancel.variables.commandId === record.id}
                      onCancel={canCancel ? () => setCancelTarget(record) : undefined}
                      queuedCancel={queuedCancel}
                      onWithdraw={
                        canCancel && queuedCancel
                          ? () => setWithdrawTarget(queuedCancel.change)
                          : undefined
                      }
                      withdrawing={
                        withdraw.isPending && withdraw.variables.id === queuedCancel?.change.id
                      }
                    />
                  );
                })}
              </tbody>
            </table>
          </div>
        )
      }
    </QueryView>
  );

  return (
    <div className="stack">
      <p className="field-hint">
        Commands whose window falls between {rangeWords} (site time). Statuses refresh on their own
        until final.
      </p>
      {cancel.isError ? (
        <CancelError
          commandId={cancel.variables.commandId}
          error={cancel.error}
          timeZone={timeZone}
        />
      ) : null}
      <WithdrawOutcome
        withdraw={withdraw}
        what="The cancel was not withdrawn."
        timeZone={timeZone}
      />
      {cancel.isSuccess ? (
        isQueuedAnswer(cancel.data) ? (
          <p role="status" className="notice">
            <QueuedChangeLine
              what={`Cancel of command ${cancel.variables.commandId}`}
              queued={cancel.data.queued}
              timeZone={timeZone}
            />
          </p>
        ) : (
          <p role="status" className="notice notice-success">
            Command {cancel.data.commandId} is {cancel.data.status}.
          </p>
        )
      ) : null}
      {body}
      {withdrawTarget && canCancel ? (
        <WithdrawChangeDialog
          change={withdrawTarget}
          deviceName={deviceName}
          timeZone={timeZone}
          onDismiss={() => setWithdrawTarget(undefined)}
          onConfirm={() => {
            withdraw.mutate(withdrawTarget);
            // The notice of the cancel it withdraws no longer holds ("not sent yet").
            if (isQueuedAnswer(cancel.data) && cancel.data.queued.changeId === withdrawTarget.id)
              cancel.reset();
            setWithdrawTarget(undefined);
          }}
        />
      ) : null}
      {cancelTarget && canCancel ? (
        <ConfirmDialog
          title={`Cancel command ${cancelTarget.id}?`}
          confirmLabel="Cancel command"
          dismissLabel="Keep command"
          onDismiss={() => setCancelTarget(null)}
          onConfirm={() => {
            const target = cancelTarget;
            cancel.mutate(
              { deviceId, commandId: target.id },
              {
                onSuccess: (cancellation, { idempotencyKey }) => {
                  // A queued cancel has cancelled nothing yet; withdrawing it is its undo.
                  if (isQueuedAnswer(cancellation)) return;
                  offerUndo(
                    {
                      kind: 'cancel',
                      record: applyCancellation(target, cancellation),
                      key: idempotencyKey,
                    },
                    `${commandWords(target, deviceName, timeZone)} cancelled`,
                    timeZone,
                  );
                },
              },
            );
            setCancelTarget(null);
          }}
        >
          <p>
            {describePowerControl(cancelTarget.powerControl)},{' '}
            {formatWindowInZone(cancelTarget.startTime, cancelTarget.endTime, timeZone)} (site
            time).{' '}
            {cancelTarget.status === 'executing'
              ? 'It is executing now: it stops at once, and a cancel of a running command cannot be undone.'
              : 'Right after, Undo sends the same command again (with a new ID) while its window is still ahead.'}
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
