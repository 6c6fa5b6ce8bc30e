import { deviceStateWords } from '#client/lib/device-state-words.ts';
import { shortClockLabel } from '#client/lib/site-clock-words.ts';
import { barAccessibleName, type Bar } from '../lib/bars.ts';
import { editLock } from '../lib/edit-lock.ts';
import { ghostAccessibleName, type GhostWindow } from '../lib/ghosts.ts';
import type { TimelineRow } from '../lib/rows.ts';

export interface AccessibleRowsProps {
  rows: readonly TimelineRow[];
  first: number;
  last: number;
  barsByDevice: ReadonlyMap<string, readonly Bar[]>;
  /** Windows not sent yet (plan rows, queued changes' windows); a queued one is read-only. */
  ghostsByDevice?: ReadonlyMap<string, readonly GhostWindow[]> | undefined;
  range: { startMs: number; endMs: number };
  utc: boolean;
  /** Now (epoch ms): a window that may no longer change is marked read-only (lib/edit-lock.ts). */
  nowMs: number;
  selectedBarId: string | undefined;
  /** Device rows chosen together for a paste (Shift+Up/Down): marked selected. */
  selectedDeviceIds?: ReadonlySet<string> | undefined;
}

/**
 * The canvas's accessible grid (docs/decisions/001-timeline-rendering.md): a row per device in
 * view, a gridcell per bar and ghost in range; ids `tl-row-<index>` and `tl-bar-<id>` are what
 * aria-activedescendant names. A locked window is `aria-readonly` (the canvas's lock, in words).
 */
export function AccessibleRows(props: AccessibleRowsProps) {
  const { rows, range, utc } = props;
  const out: React.ReactNode[] = [];
  for (let i = props.first; i <= props.last; i++) {
    const row = rows[i];
    if (row?.kind !== 'device') continue;
    const zone = utc ? 'UTC' : row.site.timeZone;
    const inRange = (window: { startMs: number; endMs: number }) =>
      window.endMs > range.startMs && window.startMs < range.endMs;
    const bars = (props.barsByDevice.get(row.device.deviceId) ?? []).filter(inRange);
    const ghosts = (props.ghostsByDevice?.get(row.device.deviceId) ?? []).filter(inRange);
    out.push(
      <div
        role="row"
        key={row.device.deviceId}
        aria-rowindex={i + 1}
        aria-selected={props.selectedDeviceIds?.has(row.device.deviceId) || undefined}
      >
        <div role="rowheader" id={`tl-row-${i}`}>
          {row.device.name} ({row.device.deviceId}
          {deviceStateWords(row.device) ? `, ${deviceStateWords(row.device)}` : ''}, {row.site.name}
          {!utc && row.site.clock.source === 'offset' ? `, ${shortClockLabel(row.site)}` : ''})
        </div>
        {bars.map((bar) => (
          <div
            role="gridcell"
            key={bar.id}
            id={`tl-bar-${bar.id}`}
            aria-selected={bar.id === props.selectedBarId}
            aria-readonly={editLock(bar, props.nowMs) ? true : undefined}
            data-status={bar.status}
          >
            {barAccessibleName(row.device.name, bar, zone)}
          </div>
        ))}
        {ghosts.map((ghost) => (
          <div
            role="gridcell"
            key={ghost.id}
            id={`tl-bar-${ghost.id}`}
            aria-selected={false}
            aria-readonly={ghost.queued ? true : undefined}
            data-ghost={ghost.queued ? 'queued' : ghost.refusal ? 'refused' : 'accepted'}
          >
            {ghostAccessibleName(row.device.name, ghost, zone)}
          </div>
        ))}
      </div>,
    );
  }
  return <div className="visually-hidden">{out}</div>;
}
