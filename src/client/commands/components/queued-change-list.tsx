import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import { QueryView } from '../../components/query-view.tsx';
import { useDeviceBudgetWords } from '../../lib/device-budget.ts';
import { queuedChangesQueryOptions, useWithdrawChange } from '../api/queued-changes.ts';
import { queuedChangeWhen, queuedChangeWords } from '../lib/queued.ts';
import { WithdrawChangeDialog } from './withdraw-change-dialog.tsx';
import { WithdrawOutcome } from './withdraw-outcome.tsx';

interface QueuedChangeListProps {
  deviceId?: string | undefined;
  /** The zone a change's times are shown on, from its devices (`UTC` across zones). */
  timeZoneOf: (deviceIds: readonly string[]) => string;
  canWithdraw: boolean;
}

/**
 * The changes waiting for their devices' budget (docs/decisions/007-device-call-budget.md,
 * section 2), what each sends and when, with a confirmed withdraw until its first call starts.
 */
export function QueuedChangeList({ deviceId, timeZoneOf, canWithdraw }: QueuedChangeListProps) {
  const changes = useQuery(
    queuedChangesQueryOptions(deviceId ? { waiting: 'true', deviceId } : { waiting: 'true' }),
  );
  const withdraw = useWithdrawChange();
  const budgetWords = useDeviceBudgetWords();
  const [target, setTarget] = useState<QueuedChangeStatus>();

  return (
    <QueryView
      query={changes}
      loading="queued changes"
      failed="The queued changes could not be read."
    >
      {({ changes: waiting }) => (
        <div className="stack">
          <WithdrawOutcome
            withdraw={withdraw}
            what="The change was not withdrawn."
            timeZone={withdraw.variables ? timeZoneOf(withdraw.variables.deviceIds) : undefined}
          />
          {waiting.length === 0 ? (
            <p className="empty-state">
              No change is waiting. A change goes at once while its devices have calls to the vendor
              left ({budgetWords}); else it waits here until its turn.
            </p>
          ) : (
            <ul aria-label="Queued changes" className="stack">
              {waiting.map((change) => (
                <li key={change.id}>
                  <p>
                    {queuedChangeWords(change, timeZoneOf(change.deviceIds))}.{' '}
                    {queuedChangeWhen(change, timeZoneOf(change.deviceIds))}
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
            <WithdrawChangeDialog
              change={target}
              deviceName={target.deviceIds[0] ?? ''}
              timeZone={timeZoneOf(target.deviceIds)}
              onDismiss={() => setTarget(undefined)}
              onConfirm={() => {
                withdraw.mutate(target);
                setTarget(undefined);
              }}
            />
          ) : null}
        </div>
      )}
    </QueryView>
  );
}
