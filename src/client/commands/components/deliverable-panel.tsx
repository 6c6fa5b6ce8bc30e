import type { UseQueryResult } from '@tanstack/react-query';
import { useEffect } from 'react';
import type {
  CannotLast,
  DeliverableAnswer,
  NotFollowingFlag,
  NotMeasured,
} from '#domain/deliverable.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import type { ApiError } from '#client/lib/api-error.ts';
import { formatMeasuredPowerW } from '#client/lib/power-control-words.ts';
import { clockTimeWithSeconds, windowLengthWords, zoneLabel } from '#client/lib/time.ts';
import { useDeliverable } from '../api/deliverable.ts';
import type { CommandDraft } from '../lib/command-form-values.ts';
import './deliverable-panel.css';

/** Lists longer than this open collapsed. */
export const OPEN_LIST_LIMIT = 5;

interface DeliverablePanelProps {
  /** The selection now (an answer of an older selection names only those still in it). */
  deviceIds: readonly string[];
  deliverable: Pick<
    UseQueryResult<DeliverableAnswer, ApiError>,
    'data' | 'error' | 'isFetching'
  > & {
    settling: boolean;
  };
  /** Times on this clock (the selection's sites', else UTC). */
  timeZone: string;
  onLeaveOut: (deviceIds: string[]) => void;
  /** The devices left out last, to put back; empty when none. */
  leftOut: readonly string[];
  onPutBack: () => void;
  /** Asks for the snapshot again (its devices' calls were spent). */
  onRetry: () => void;
  /** For ids: `batch`, `fleet`. */
  idPrefix: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `did not follow 2 of its last 3 commands` (fewer than 3 for a device with fewer commands). */
export function notFollowingWords(flag: { notFollowing: number; of: number }): string {
  return `did not follow ${flag.notFollowing} of ${flag.of === 1 ? 'its last command' : `its last ${flag.of} commands`}`;
}

/** `lasts 24 min (state of charge)`, `gives at most 1.4 kW (site limit)`. */
export function cannotLastWords(device: CannotLast): string {
  if (device.limitedBy === 'stateOfCharge')
    return `lasts ${windowLengthWords(device.lastsMs)} before its cut-off; holds ${formatMeasuredPowerW(Math.abs(device.deliverableW))} over the window`;
  const limit = device.limitedBy === 'siteLimit' ? 'its site limit' : 'its power limit';
  return `gives at most ${formatMeasuredPowerW(Math.abs(device.capW))} (${limit})`;
}

function notMeasuredWords(device: NotMeasured, timeZone: string): string {
  switch (device.reason) {
    case 'budget':
      return device.readableAt
        ? `not read: its calls are kept for changes until ${clockTimeWithSeconds(device.readableAt, timeZone)}`
        : 'not read: its calls are kept for changes';
    case 'silent':
      return 'no recent sample (offline or not sampling)';
    case 'unrated':
      return 'its capacity or power rating is unknown';
  }
}

/**
 * Before sending a batch or a fleet job (docs/verification.md, Deliverable power before
 * sending): "Deliverable about X for 2 h of Y commanded" from a fresh snapshot of the selection,
 * the devices that cannot last the window with how long they can, those not measured, and those
 * that did not follow 2 of their last 3 commands with one button to leave them out (and put them
 * back).
 */
export function DeliverablePanel({
  deviceIds,
  deliverable,
  timeZone,
  onLeaveOut,
  leftOut,
  onPutBack,
  onRetry,
  idPrefix,
}: DeliverablePanelProps) {
  const { data, error, isFetching, settling } = deliverable;
  const selected = new Set(deviceIds);
  const flagged = (data?.notFollowing ?? []).filter((flag) => selected.has(flag.deviceId));
  const busy = isFetching || settling;
  const headingId = `${idPrefix}-deliverable-heading`;
  if (deviceIds.length === 0 && leftOut.length === 0) return null;
  const power = data?.power;
  const zone = zoneLabel(timeZone);
  const allDeferred =
    power !== undefined && power.measured === 0 && data !== undefined && data.snapshot.deferred > 0;

  return (
    <section className="deliverable stack" aria-labelledby={headingId} aria-busy={busy}>
      <h3 id={headingId}>Deliverable power</h3>
      <p role="status" aria-live="polite">
        {!data && busy
          ? `Taking a snapshot of ${plural(deviceIds.length, 'device', 'devices')}…`
          : data && !power
            ? 'Set a target battery power and a valid window to see what the devices can deliver for it.'
            : null}
        {power && !allDeferred ? (
          <>
            <strong className="deliverable-figure">
              Deliverable about {formatMeasuredPowerW(Math.abs(power.deliverableW))} for{' '}
              {windowLengthWords(power.durationMs)} of{' '}
              {formatMeasuredPowerW(Math.abs(power.commandedW))} commanded
              {power.requestedW < 0 ? ' (charging)' : ''}
            </strong>{' '}
            <span>
              From the latest samples of {power.measured} of{' '}
              {plural(data.devices, 'device', 'devices')}.
              {busy
                ? ` Taking a new snapshot for the ${plural(deviceIds.length, 'device', 'devices')} selected now…`
                : ''}
            </span>
          </>
        ) : null}
      </p>
      {error ? (
        <ErrorAlert
          error={error}
          what="The snapshot could not be taken; the devices' power is not known."
          timeZone={timeZone}
        />
      ) : null}
      {allDeferred ? (
        <div className="notice notice-warning">
          <p>
            The snapshot could not be taken now: the devices&apos; calls are kept for changes
            {data.snapshot.readableAt
              ? ` until ${clockTimeWithSeconds(data.snapshot.readableAt, timeZone)} (${zone})`
              : ''}
            .
          </p>
          <div className="actions">
            <button type="button" onClick={onRetry} disabled={busy}>
              Take the snapshot again
            </button>
          </div>
        </div>
      ) : data && data.snapshot.deferred > 0 && power ? (
        <p className="notice notice-warning">
          {plural(data.snapshot.deferred, 'device was', 'devices were')} not read now: their calls
          are kept for changes
          {data.snapshot.readableAt
            ? ` until ${clockTimeWithSeconds(data.snapshot.readableAt, timeZone)} (${zone})`
            : ''}
          ; a recent sample counts for them where there is one.
        </p>
      ) : null}
      {power && power.cannotLastCount > 0 ? (
        <details open={power.cannotLastCount <= OPEN_LIST_LIMIT} className="deliverable-list">
          <summary>
            {plural(power.cannotLastCount, 'device cannot', 'devices cannot')} last the{' '}
            {windowLengthWords(power.durationMs)} window
          </summary>
          <ul>
            {power.cannotLast.map((device) => (
              <li key={device.deviceId}>
                <span className="mono">{device.deviceId}</span> {cannotLastWords(device)}
              </li>
            ))}
            {power.cannotLastCount > power.cannotLast.length ? (
              <li>and {power.cannotLastCount - power.cannotLast.length} more</li>
            ) : null}
          </ul>
        </details>
      ) : null}
      {power && power.notMeasuredCount > 0 && !allDeferred ? (
        <details open={power.notMeasuredCount <= OPEN_LIST_LIMIT} className="deliverable-list">
          <summary>
            {plural(power.notMeasuredCount, 'device is', 'devices are')} not counted: not measured
          </summary>
          <ul>
            {power.notMeasured.map((device) => (
              <li key={device.deviceId}>
                <span className="mono">{device.deviceId}</span> {notMeasuredWords(device, timeZone)}
              </li>
            ))}
            {power.notMeasuredCount > power.notMeasured.length ? (
              <li>and {power.notMeasuredCount - power.notMeasured.length} more</li>
            ) : null}
          </ul>
        </details>
      ) : null}
      {flagged.length > 0 ? (
        <div className="notice notice-warning stack" data-testid={`${idPrefix}-not-following`}>
          <p>
            <strong>
              {plural(flagged.length, 'device', 'devices')} did not follow{' '}
              {flagged.length === 1 ? 'its' : 'their'} recent commands
            </strong>
          </p>
          <ul>
            {flagged.map((flag) => (
              <li key={flag.deviceId}>
                <span className="mono">{flag.deviceId}</span> {notFollowingWords(flag)}
              </li>
            ))}
          </ul>
          <div className="actions">
            <button type="button" onClick={() => onLeaveOut(flagged.map((flag) => flag.deviceId))}>
              Leave out {plural(flagged.length, 'device', 'devices')} that did not follow
            </button>
          </div>
        </div>
      ) : null}
      {leftOut.length > 0 ? (
        <p role="status" className="notice">
          Left out {plural(leftOut.length, 'device', 'devices')} that did not follow:{' '}
          {leftOut.join(', ')}.{' '}
          <button type="button" onClick={onPutBack}>
            Put {leftOut.length === 1 ? 'it' : 'them'} back
          </button>
        </p>
      ) : null}
    </section>
  );
}

/**
 * {@link DeliverablePanel} with its snapshot asked for as the form changes (`useDeliverable`),
 * rendered inside a command form (its `beforeSubmit`); tells the form which selected devices are
 * flagged, for its own list.
 */
export function DeliverableCheck({
  draft,
  onFlagged,
  ...props
}: Omit<DeliverablePanelProps, 'deliverable' | 'onRetry'> & {
  draft: CommandDraft;
  onFlagged?: ((flags: readonly NotFollowingFlag[]) => void) | undefined;
}) {
  const deliverable = useDeliverable(props.deviceIds, draft);
  const flags = deliverable.data?.notFollowing;
  useEffect(() => {
    if (flags) onFlagged?.(flags);
  }, [flags, onFlagged]);
  return (
    <DeliverablePanel
      {...props}
      deliverable={deliverable}
      onRetry={() => void deliverable.refetch()}
    />
  );
}
