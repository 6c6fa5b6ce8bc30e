import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import { ConfirmDialog, type ConfirmAnswers } from '../../components/confirm-dialog.tsx';
import { queuedChangeWords } from '../lib/queued.ts';

export interface WithdrawChangeDialogProps extends ConfirmAnswers {
  /** The change, or undefined before the list answered: then only `deviceName` is named. */
  change: QueuedChangeStatus | undefined;
  deviceName: string;
  timeZone: string;
}

/**
 * The confirmation before a queued change is withdrawn (a batch's on all its devices): nothing of it
 * is sent unless already sending (docs/decisions/007-device-call-budget.md, section 2).
 */
export function WithdrawChangeDialog({
  change,
  deviceName,
  timeZone,
  ...answers
}: WithdrawChangeDialogProps) {
  return (
    <ConfirmDialog
      title="Withdraw this queued change?"
      confirmLabel="Withdraw change"
      dismissLabel="Keep change"
      {...answers}
    >
      <p>
        {change ? `${queuedChangeWords(change, timeZone)}.` : `The queued change on ${deviceName}.`}
      </p>
      {change && change.deviceIds.length > 1 ? (
        <p>
          It is one change for {change.deviceIds.length} devices: it is withdrawn on all of them.
        </p>
      ) : null}
      <p>
        Nothing of it is sent. If it is already being sent when the withdraw arrives, it goes on and
        you are told so.
      </p>
    </ConfirmDialog>
  );
}
