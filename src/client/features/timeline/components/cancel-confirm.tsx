import type { StatusRecord } from '#domain/command.ts';
import { ConfirmDialog } from '#client/components/confirm-dialog.tsx';
import { windowInZone } from '../lib/window-words.ts';

/** The confirmation before a command is cancelled, its window on `timeZone`. */
export function CancelConfirm(props: {
  record: StatusRecord;
  deviceName: string;
  timeZone: string;
  onConfirm: () => void;
  onDismiss: () => void;
}) {
  const { record } = props;
  return (
    <ConfirmDialog
      title="Cancel this command?"
      confirmLabel="Cancel command"
      dismissLabel="Keep command"
      onDismiss={props.onDismiss}
      onConfirm={props.onConfirm}
    >
      <p>
        {record.id} on {props.deviceName},{' '}
        {windowInZone(Date.parse(record.startTime), Date.parse(record.endTime), props.timeZone)}.{' '}
        {record.status === 'executing'
          ? 'It is executing now: it stops at once, and a cancel of a running command cannot be undone.'
          : 'Right after, Undo sends the same command again while its window is still ahead.'}
      </p>
    </ConfirmDialog>
  );
}
