import type { FleetRollout } from '#domain/fleet-job.ts';
import { ConfirmDialog } from '#client/components/confirm-dialog.tsx';
import { formatWindowInZoneWithUtc, formatWindowUtc } from '#client/lib/time.ts';

/** What a fleet send is about to do, for {@link FleetSendConfirm}. */
export interface FleetSendPlan {
  deviceIds: readonly string[];
  /** From the earliest start to the latest end of the commands, epoch ms. */
  span: { startMs: number; endMs: number };
  /** The zone the devices share, or undefined when they are on different clocks (UTC then). */
  timeZone: string | undefined;
  batchCount: number;
  rollout: FleetRollout;
}

const NAMED_DEVICES = 5;

/** `BAT-1, BAT-2 and 5 more`: the first few IDs and how many more. */
export function firstDeviceIds(deviceIds: readonly string[], named = NAMED_DEVICES): string {
  const shown = deviceIds.slice(0, named).join(', ');
  return deviceIds.length > named ? `${shown} and ${deviceIds.length - named} more` : shown;
}

/** The pace of a rollout in words (docs/fleet-dispatch.md, Rollout and Abort rule). */
export function paceWords({ batchCount, rollout }: Pick<FleetSendPlan, 'batchCount' | 'rollout'>) {
  const { batchSize, batchesPerMinute, abortPercent } = rollout;
  const minutes = batchCount > 1 ? Math.ceil((batchCount - 1) / batchesPerMinute) : 0;
  const batches = `${batchCount} batch${batchCount === 1 ? '' : 'es'} of up to ${batchSize} device${batchSize === 1 ? '' : 's'}, ${batchesPerMinute} a minute`;
  const over = minutes > 0 ? `, over about ${minutes} min` : '';
  const stop =
    abortPercent >= 100
      ? 'It never stops by itself, however many devices fail.'
      : `It stops once more than ${abortPercent}% of the devices sent so far failed or were cancelled.`;
  return `${batches}${over}. ${stop}`;
}

/**
 * The confirmation before a fleet job or plan sends anything (docs/fleet-dispatch.md): devices,
 * window (site clock with UTC), pace and stop rule; focus starts on the button that sends nothing.
 */
export function FleetSendConfirm({
  title,
  plan,
  confirmLabel,
  onConfirm,
  onDismiss,
}: {
  title: string;
  plan: FleetSendPlan;
  confirmLabel: string;
  onConfirm: () => void;
  onDismiss: () => void;
}) {
  const { deviceIds, span, timeZone } = plan;
  const count = deviceIds.length;
  return (
    <ConfirmDialog
      title={title}
      confirmLabel={confirmLabel}
      dismissLabel="Keep editing"
      onConfirm={onConfirm}
      onDismiss={onDismiss}
    >
      <dl className="fleet-send-confirm">
        <dt>Devices</dt>
        <dd>
          {count} device{count === 1 ? '' : 's'}:{' '}
          <span className="mono">{firstDeviceIds(deviceIds)}</span>
        </dd>
        <dt>Window</dt>
        <dd>
          {timeZone
            ? formatWindowInZoneWithUtc(span.startMs, span.endMs, timeZone)
            : `${formatWindowUtc(span.startMs, span.endMs)} (the devices are on different clocks)`}
        </dd>
        <dt>Pace</dt>
        <dd>{paceWords(plan)}</dd>
      </dl>
    </ConfirmDialog>
  );
}
