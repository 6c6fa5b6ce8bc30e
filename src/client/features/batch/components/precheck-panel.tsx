import { useMemo } from 'react';
import { historyRangeSlots, MAX_HISTORY_RANGE_MS } from '#domain/history.ts';
import { CANCELLATION_REASON_WORDS, COMMAND_STATUS_WORDS } from '#domain/words.ts';
import { useDeviceHistories } from '#client/commands/api/get-command-history.ts';
import { POWER_CONTROL_WORDS } from '#client/lib/power-control-words.ts';
import { formatWindowInZone } from '#client/lib/time.ts';
import type { SiteDevice } from '../lib/device-directory.ts';
import { precheckDevice, type PrecheckDraft, type PrecheckFinding } from '../lib/precheck.ts';

/** Most history slots read per device (360 days): a mistyped year would read a slot per 30 days for 50 devices. */
const MAX_PRECHECK_SLOTS = 12;
const MAX_PRECHECK_DAYS = (MAX_PRECHECK_SLOTS * MAX_HISTORY_RANGE_MS) / 86_400_000;

interface PrecheckPanelProps {
  devices: readonly SiteDevice[];
  draft: PrecheckDraft;
  onDrop: (deviceIds: string[]) => void;
  /** The batch once it is sent: its own commands are not overlaps. */
  batchCommandId?: string | undefined;
}

function findingWords(finding: PrecheckFinding, timeZone: string): string {
  switch (finding.kind) {
    case 'overlap': {
      const { command } = finding;
      return `Overlaps command ${command.id} (${COMMAND_STATUS_WORDS[command.status]}, ${formatWindowInZone(command.startTime, command.endTime, timeZone)}): its batch command will be cancelled at once, "${CANCELLATION_REASON_WORDS.timeWindowOverlap}".`;
    }
    case 'notSupported':
      return `Lacks ${finding.properties.map((p) => POWER_CONTROL_WORDS[p].name).join(', ')}: its command will end cancelled, "${CANCELLATION_REASON_WORDS.notSupported}".`;
    case 'offline':
      return `Offline: unless it comes back before the start, its command will end cancelled, "${CANCELLATION_REASON_WORDS.startTimeExpire}".`;
    case 'faulted':
      return `Faulted: the vendor reports a fault on it; unless it is cleared, its command may end cancelled, "${CANCELLATION_REASON_WORDS.deviceFault}".`;
  }
}

/**
 * The pre-check before submit, per device: an overlap with an active command (over every slot the
 * window meets), a lacking control, offline or faulted; each flagged device can be dropped.
 */
export function PrecheckPanel({ devices, draft, onDrop, batchCommandId }: PrecheckPanelProps) {
  const { window } = draft;
  const tooLong =
    window !== null && historyRangeSlots(window.startMs, window.endMs).length > MAX_PRECHECK_SLOTS;
  const deviceIds = useMemo(() => devices.map(({ device }) => device.deviceId), [devices]);
  const { devices: histories } = useDeviceHistories(deviceIds, tooLong ? null : window);
  const checking = window !== null && !tooLong && histories.some((h) => h.isPending);
  const unreadable = devices.filter((_, i) => histories[i]?.error);
  const flagged = devices.flatMap((entry, i) => {
    const history = histories[i];
    const findings = precheckDevice(
      entry.device,
      draft,
      history && !history.isPending ? history.commands : undefined,
      batchCommandId,
    );
    return findings.length > 0 ? [{ entry, findings }] : [];
  });

  if (devices.length === 0) return null;
  return (
    <section className="precheck stack" aria-labelledby="precheck-heading" aria-busy={checking}>
      <h3 id="precheck-heading">Pre-check</h3>
      <p role="status">
        {window === null
          ? 'Enter a valid window to check the devices for overlapping commands.'
          : tooLong
            ? `The window is longer than ${MAX_PRECHECK_DAYS} days, so it is not checked for overlapping commands; ${flagged.length} of ${devices.length} devices flagged otherwise.`
            : checking
              ? `Checking ${devices.length} devices for overlapping commands…`
              : flagged.length === 0 && unreadable.length === 0
                ? draft.properties.length === 0
                  ? `All ${devices.length} devices checked: no overlap, none offline or faulted. Once a power control is set, each device is checked for it too.`
                  : `All ${devices.length} devices checked: no overlap, each supports the controls set, none offline or faulted.`
                : `${flagged.length} of ${devices.length} devices flagged.`}
      </p>
      {unreadable.length > 0 ? (
        <p className="notice notice-warning">
          Could not read the commands of{' '}
          {unreadable.map(({ device }) => device.deviceId).join(', ')}: an overlap there is not
          ruled out.
        </p>
      ) : null}
      {flagged.length > 0 ? (
        <>
          <ul className="precheck-list">
            {flagged.map(({ entry, findings }) => (
              <li key={entry.device.deviceId}>
                <div>
                  <strong className="mono">{entry.device.deviceId}</strong>
                  <ul>
                    {findings.map((finding) => (
                      <li key={finding.kind}>{findingWords(finding, entry.site.timeZone)}</li>
                    ))}
                  </ul>
                </div>
                <button type="button" onClick={() => onDrop([entry.device.deviceId])}>
                  Drop {entry.device.deviceId}
                </button>
              </li>
            ))}
          </ul>
          <div className="actions">
            <button
              type="button"
              onClick={() => onDrop(flagged.map(({ entry }) => entry.device.deviceId))}
            >
              Drop all {flagged.length} flagged devices
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}
