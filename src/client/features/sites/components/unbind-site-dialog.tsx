import { useState } from 'react';
import type { BatchCancelResult } from '#domain/batch.ts';
import type { Site } from '#domain/device.ts';
import { COMMAND_STATUS_WORDS } from '#domain/words.ts';
import { useCancelDeviceByDevice } from '#client/commands/api/cancel-device-by-device.ts';
import { Dialog } from '#client/components/dialog.tsx';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { describePowerControl } from '#client/lib/power-control-words.ts';
import { formatWindowInZoneWithUtc } from '#client/lib/time.ts';
import { useSiteWaitingCommands } from '../api/site-waiting-commands.ts';

/**
 * The confirmation of an unbind, which cancels nothing: it lists the running and waiting commands
 * and offers to cancel them first (docs/decisions/007). The site is unbound only once every cancel
 * went: an unbind would withdraw a queued one, so then it says which wait and stays bound.
 */
export function UnbindSiteDialog({
  site,
  onDismiss,
  onUnbind,
}: {
  site: Site;
  onDismiss: () => void;
  /** Unbinds the site (the dialog has closed or is closing). */
  onUnbind: () => void;
}) {
  const [openedAtMs] = useState(() => Date.now());
  const waiting = useSiteWaitingCommands(site, openedAtMs);
  const cancel = useCancelDeviceByDevice();
  const [notCancelled, setNotCancelled] = useState<BatchCancelResult[]>();
  const commands = waiting.state === 'read' ? waiting.commands : [];
  const count = commands.length;
  const nameOf = (deviceId: string) =>
    site.devices.find((device) => device.deviceId === deviceId)?.name;

  const cancelThenUnbind = () => {
    setNotCancelled(undefined);
    cancel.mutate(
      commands.map((c) => ({ deviceId: c.deviceId, commandId: c.id })),
      {
        onSuccess: (results) => {
          // A command that ended meanwhile (completed or cancelled) leaves nothing behind.
          const left = results.filter(
            (r) => !r.success && r.status !== 'completed' && r.status !== 'cancelled',
          );
          if (left.length === 0) onUnbind();
          else setNotCancelled(left);
        },
      },
    );
  };

  const actions = (
    <>
      <button type="button" autoFocus onClick={onDismiss}>
        Keep site
      </button>
      {count > 0 ? (
        <>
          <button type="button" className="danger" disabled={cancel.isPending} onClick={onUnbind}>
            Leave them running and unbind
          </button>
          <button
            type="button"
            className="danger"
            disabled={cancel.isPending}
            onClick={cancelThenUnbind}
          >
            {cancel.isPending ? 'Cancelling…' : 'Cancel them, then unbind'}
          </button>
        </>
      ) : (
        <button
          type="button"
          className="danger"
          disabled={waiting.state === 'loading'}
          onClick={onUnbind}
        >
          Unbind site
        </button>
      )}
    </>
  );

  return (
    <Dialog
      title={`Unbind ${site.name} (${site.siteId})?`}
      role="alertdialog"
      size={count > 0 ? 'medium' : 'small'}
      onClose={onDismiss}
      actions={actions}
    >
      <p>
        powerdeck will no longer reach its {site.devices.length} devices or their commands until the
        site is bound again.
      </p>
      {waiting.state === 'loading' ? (
        <p role="status">Looking for its waiting and executing commands…</p>
      ) : null}
      {waiting.state === 'unreadable' ? (
        <p className="notice notice-warning">
          Its waiting and executing commands could not be read: any it has stay on the devices after
          the unbind and run as scheduled, and powerdeck can no longer cancel them.
        </p>
      ) : null}
      {count > 0 ? (
        <>
          <p>
            An unbind cancels nothing: {count === 1 ? 'this command' : `these ${count} commands`}{' '}
            stay on the devices and run as scheduled, and powerdeck can no longer follow or cancel{' '}
            {count === 1 ? 'it' : 'them'} until the site is bound again.
          </p>
          <ul aria-label="Waiting and executing commands">
            {commands.map((c) => (
              <li key={`${c.deviceId} ${c.id}`}>
                <span className="mono">{c.deviceId}</span>
                {nameOf(c.deviceId) ? ` (${nameOf(c.deviceId)})` : ''}:{' '}
                {describePowerControl(c.powerControl)},{' '}
                {formatWindowInZoneWithUtc(c.startTime, c.endTime, site.timeZone)},{' '}
                {COMMAND_STATUS_WORDS[c.status]}
              </li>
            ))}
          </ul>
          <p className="field-hint">
            Cancel them, then unbind: each is cancelled as from its device&apos;s page, within the
            device&apos;s calls to the vendor; the site is unbound once all are cancelled.
          </p>
        </>
      ) : null}
      {notCancelled ? (
        <div role="alert" className="notice notice-warning">
          <p>
            The site is still bound: {notCancelled.length} of {count} commands are not cancelled
            yet. Unbind it once they are (a cancel waiting for its device&apos;s next call is sent
            then, and the bell says so), or leave them running and unbind.
          </p>
          <ul>
            {notCancelled.map((r) => (
              <li key={`${r.deviceId} ${r.commandId ?? ''}`}>
                <span className="mono">{r.deviceId}</span>: {r.error?.message ?? 'not cancelled.'}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {cancel.isError ? (
        <ErrorAlert
          error={cancel.error}
          what="The cancels did not finish; the site is still bound."
        />
      ) : null}
    </Dialog>
  );
}
