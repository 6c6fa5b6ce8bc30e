import type { Device } from '../../../../domain/device.ts';
import type { Bar } from '../lib/bars.ts';
import { StatusRecordList } from './status-record-list.tsx';

/** Hover card of a bar: the full status record, times in the site's zone. */
export function BarTooltip(props: {
  bar: Bar;
  device: Device;
  timeZone: string;
  x: number;
  y: number;
}) {
  return (
    <div
      className="timeline-tooltip"
      role="tooltip"
      style={{ left: Math.max(0, props.x + 12), top: props.y + 16 }}
    >
      <strong>{props.device.name}</strong>
      <StatusRecordList record={props.bar.record} timeZone={props.timeZone} />
    </div>
  );
}
