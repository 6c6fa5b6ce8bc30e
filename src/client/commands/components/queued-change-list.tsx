import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { QueuedChangeStatus } from '../../../domain/queued-change.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Loading } from '../../components/loading.tsx';
import { queuedChangesQueryOptions, useWithdrawChange } from '../api/queued-changes.ts';
import { queuedChangeWhen, queuedChangeWords } from '../lib/queued.ts';

interface QueuedChangeListProps {
  deviceId: string;
  /** The zone of the device's site (IANA or a fixed offset): times on its clock, UTC beside. */
  timeZone: string;
  /** Whether the operator may withdraw a change (the dispatch permission). */
  canWithdraw: boolean;
}

/**
 * The changes of one device still waiting for its budget of upstream calls (two per minute,
 * docs/decisions/007-device-call-budget.md, section 2): what each sends, when it goes on the
 * site's clock, who made it, and a withdraw (after a confirmation) until its first call starts.
 * Read from the BFF's own queue, so it survives a reload; pushed events keep it current.
 */
export function QueuedChangeList({ deviceId, timeZone, canWithdraw }: QueuedChangeListProps) {
  const changes = useQuery(queuedChangesQueryOptions({ waiting: 'true', deviceId }));
  const withdraw = useWithdrawChange();
  const [target, setTarget] = useState<QueuedChangeStatus>();

  if (changes.isPending) return <Loading what="queued changes" />;
  if (changes.isError)
    return (
      <ErrorAlert
        error={changes.error}
        what="The queued changes could not be read."
        onRetry={() => void changes.refetch()}
      />
    );
  const waiting = changes.data.changes;

  return (
    <div className="stack">
      {withdraw.isSuccess ? (
        <p role="status" className="notice notice-success">
          Withdrawn: nothing of that change was sent.
        </p>
      ) : null}
      {withdraw.isError ? (
        <ErrorAlert
          error={withdraw.error}
          what="The change was not withdrawn."
          timeZone={timeZone}
        />
      ) : null}
      {waiting.length === 0 ? (
        <p className="empty-state">
          No change is waiting. A change goes at once while the device has calls to the vendor left
          this minute (two per minute); else it waits here until its turn.
        </p>
      ) : (
        <ul aria-label="Queued changes" className="stack">
          {waiting.map((change) => (
            <li key={change.id}>
              <p>
                {queuedChangeWords(change, timeZone)}. {queuedChangeWhen(change, timeZone)}
                {change.madeBy ? ` Made by ${change.madeBy}.` : ''}
              </p>
              {canWithdraw && change.state === 'queued' ? (
                <button
                  type="button"
                  className="danger"
                  disabled={withdraw.isPending}
                  onClick={() => setTarget(change)}
                >
                  Withdraw
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {target ? (
        <ConfirmDialog
          title="Withdraw this change?"
          confirmLabel="Withdraw change"
          dismissLabel="Keep change"
          onDismiss={() => setTarget(undefined)}
          onConfirm={() => {
            withdraw.mutate(target);
            setTarget(undefined);
          }}
        >
          <p>{queuedChangeWords(target, timeZone)}.</p>
          <p>
            Nothing of it is sent. If it is already being sent when the withdraw arrives, it goes on
            and you are told so.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
