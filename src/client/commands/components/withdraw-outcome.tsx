import { ErrorAlert } from '../../components/error-alert.tsx';
import type { useWithdrawChange } from '../api/queued-changes.ts';

/** What a withdrawal came to (docs/decisions/007-device-call-budget.md, section 4); nothing until one was tried. */
export function WithdrawOutcome({
  withdraw,
  what,
  timeZone,
}: {
  withdraw: ReturnType<typeof useWithdrawChange>;
  what: string;
  timeZone: string | undefined;
}) {
  if (withdraw.isSuccess)
    return (
      <p role="status" className="notice notice-success">
        Withdrawn: nothing of that change was sent.
      </p>
    );
  if (withdraw.isError)
    return <ErrorAlert error={withdraw.error} what={what} timeZone={timeZone} />;
  return null;
}
