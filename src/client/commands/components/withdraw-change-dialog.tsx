import type { QueuedChangeStatus } from '../../../domain/queued-change.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { queuedChangeWords } from '../lib/queued.ts';

export interface WithdrawChangeDialogProps {
  /**
   * The queued change, when known: its steps are named on the site's clock. Undefined while the
   * list of waiting changes has not answered yet; the dialog then names only `deviceName`.
   */
  change: QueuedChangeStatus | undefined;
  /** The device it was chosen on, e.g. "Hall A", for when `change` is not known. */
  deviceName: string;
  /** IANA zone of the change's site, for its times, e.g. "Europe/Berlin". */
  timeZone: string;
  onConfirm: () => void;
  onDismiss: () => void;
}

/**
 * The confirmation before a queued change is withdrawn, the same on the queued changes list, the
 * device page and the timeline: what the change sends, on how many devices (a batch is withdrawn
 * on all of them), and that nothing of it is sent unless it is being sent already
 * (`docs/decisions/007-device-call-budget.md`, section 2).
 */
export function WithdrawChangeDialog({
  change,
  deviceName,
  timeZone,
  onConfirm,
  onDismiss,
}: WithdrawChangeDialogProps) {
  return (
    <ConfirmDialog
      title="Withdraw this queued change?"
      confirmLabel="Withdraw change"
      dismissLabel="Keep change"
      onDismiss={onDismiss}
      onConfirm={onConfirm}
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
