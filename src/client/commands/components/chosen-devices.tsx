import type { Ref } from 'react';
import type { BatchCancelResult } from '#domain/batch.ts';
import { ConfirmDialog } from '#client/components/confirm-dialog.tsx';

/** `n device command(s)`: how the cancel of chosen devices counts what it cancels. */
const deviceCommands = (n: number) => `${n} device command${n === 1 ? '' : 's'}`;

/**
 * The buttons that choose devices on a page that lists the devices of a batch or a fleet job
 * (all, none, those that failed) and the count of those chosen. `counter` sets the count's
 * role and class where the page announces it as a status.
 */
export function DeviceChoiceBar({
  allIds,
  failedIds,
  chosen,
  onChoose,
  counter,
}: {
  allIds: readonly string[];
  failedIds: readonly string[];
  chosen: ReadonlySet<string>;
  onChoose: (next: ReadonlySet<string>) => void;
  counter?: { role?: 'status'; className?: string };
}) {
  return (
    <div className="actions" role="group" aria-label="Choose devices">
      <button type="button" className="secondary" onClick={() => onChoose(new Set(allIds))}>
        Select all ({allIds.length})
      </button>
      <button
        type="button"
        className="secondary"
        disabled={chosen.size === 0}
        onClick={() => onChoose(new Set())}
      >
        Select none
      </button>
      <button
        type="button"
        className="secondary"
        disabled={failedIds.length === 0}
        onClick={() => onChoose(new Set(failedIds))}
      >
        Select failed ({failedIds.length})
      </button>
      <p {...counter} aria-live="polite">
        <strong>{chosen.size}</strong> of {allIds.length} devices selected
      </p>
    </div>
  );
}

/**
 * How the last cancel of the chosen devices went, counted; `whereSaid` names where each
 * device's own outcome is written (`row`, `device`). Nothing while no cancel was sent.
 */
export function ChosenCancelOutcome({
  outcomes,
  whereSaid,
  ref,
}: {
  outcomes: readonly BatchCancelResult[];
  whereSaid: string;
  /** Where focus goes once the outcome shows (it takes focus: `tabIndex` -1). */
  ref?: Ref<HTMLParagraphElement>;
}) {
  if (outcomes.length === 0) return null;
  const cancelled = outcomes.filter((r) => r.success).length;
  const all = cancelled === outcomes.length;
  return (
    <p
      {...(ref ? { ref, tabIndex: -1 } : {})}
      role="status"
      className={all ? 'notice notice-success' : 'notice notice-warning'}
    >
      {all
        ? `All ${outcomes.length} selected device commands were cancelled.`
        : `${cancelled} of ${outcomes.length} selected device commands cancelled, ${outcomes.length - cancelled} not cancelled: each ${whereSaid} says why.`}
    </p>
  );
}

/**
 * Asks before cancelling the chosen devices' commands, each on its own: which are cancelled,
 * which are left as they are and why. `whereSaid` adds where each outcome is written.
 */
export function ChosenCancelConfirm({
  plan,
  whereSaid,
  onDismiss,
  onConfirm,
}: {
  plan: {
    toCancel: readonly { deviceId: string }[];
    untouched: readonly { deviceId: string; why: string }[];
  };
  whereSaid?: string;
  onDismiss: () => void;
  onConfirm: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Cancel ${deviceCommands(plan.toCancel.length)}?`}
      confirmLabel={`Cancel ${deviceCommands(plan.toCancel.length)}`}
      dismissLabel="Keep them"
      onDismiss={onDismiss}
      onConfirm={onConfirm}
    >
      <p>
        Cancelled, each device on its own:{' '}
        <span className="mono">{plan.toCancel.map((c) => c.deviceId).join(', ')}</span>.
      </p>
      {plan.untouched.length > 0 ? (
        <p>Left as they are: {plan.untouched.map((u) => `${u.deviceId} (${u.why})`).join(', ')}.</p>
      ) : null}
      <p>
        Each device succeeds or fails on its own{whereSaid ? `; ${whereSaid}` : ''}. A command
        already executing stops now, and a cancel cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
