import { ConfirmDialog, type ConfirmAnswers } from '#client/components/confirm-dialog.tsx';
import { useDeviceBudgetWords } from '#client/lib/device-budget.ts';
import { formatInZoneWithUtc } from '#client/lib/time.ts';

/**
 * Asked before a replace that would wait for the device's calls is queued
 * (docs/decisions/007-device-call-budget.md, section 2): the current command stays until then.
 */
export function ReplaceLaterConfirm({
  oldId,
  deviceName,
  goesAt,
  timeZone,
  ...answers
}: {
  oldId: string;
  deviceName: string;
  /** When its calls go, ISO 8601 UTC. */
  goesAt: string;
  timeZone: string;
} & ConfirmAnswers) {
  const budgetWords = useDeviceBudgetWords();
  return (
    <ConfirmDialog
      title="Replace when the device can take it?"
      confirmLabel="Queue the replace"
      dismissLabel="Keep the command"
      {...answers}
    >
      <p>
        {deviceName} has no calls to the vendor left now for a replace (a cancel and a new
        submission; {budgetWords}). Nothing is sent yet. Queued, the replace goes at{' '}
        {formatInZoneWithUtc(goesAt, timeZone)}: command {oldId} stays as it is until then, and is
        cancelled right before its new window is sent. Until then you can withdraw it under Queued
        changes.
      </p>
    </ConfirmDialog>
  );
}
