import type { StatusRecord } from '#domain/command.ts';
import { ConfirmDialog, type ConfirmAnswers } from '#client/components/confirm-dialog.tsx';
import { windowInZone } from '../lib/window-words.ts';

/** The confirmation before a command is cancelled, its window on `timeZone`. */
export function CancelConfirm({
  record,
  deviceName,
  timeZone,
  ...answers
}: { record: StatusRecord; deviceName: string; timeZone: string } & ConfirmAnswers) {
  return (
    <ConfirmDialog
      title="Cancel this command?"
      confirmLabel="Cancel command"
      dismissLabel="Keep command"
      {...answers}
    >
      <p>
        {record.id} on {deviceName},{' '}
        {windowInZone(Date.parse(record.startTime), Date.parse(record.endTime), timeZone)}.{' '}
        {record.status === 'executing'
          ? 'It is executing now: it stops at once, and a cancel of a running command cannot be undone.'
          : 'Right after, Undo sends the same command again while its window is still ahead.'}
      </p>
    </ConfirmDialog>
  );
}
