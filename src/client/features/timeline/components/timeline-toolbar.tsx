import type { RefObject } from 'react';
import {
  NOW_AT_FRACTION,
  panBy,
  scaleAroundNow,
  ZOOM_PRESETS,
  zoomAround,
  type TimeScale,
} from '../lib/time-scale.ts';

export interface TimelineToolbarProps {
  scaleRef: RefObject<TimeScale>;
  applyScale: (next: TimeScale) => void;
  timeWidthPx: number;
  nowMs: number;
  focusedDeviceName: string | undefined;
  onNewCommand: () => void;
  /** A view that only shows offers no New command. */
  readOnly?: boolean | undefined;
  /** Why the operator may only look (a viewer): the toolbar says "Read only" with it. */
  readOnlyWhy?: string | undefined;
}

/** Keyboard equivalents of the canvas's pointer gestures: zoom presets, zoom, pan, Now, New command. */
export function TimelineToolbar(props: TimelineToolbarProps) {
  const { scaleRef, applyScale, timeWidthPx, nowMs } = props;
  return (
    <div className="timeline-toolbar" role="toolbar" aria-label="Timeline view">
      {ZOOM_PRESETS.map((preset) => (
        <button
          type="button"
          key={preset.id}
          onClick={() => applyScale(scaleAroundNow(nowMs, preset.spanMs, timeWidthPx))}
        >
          {preset.label}
        </button>
      ))}
      <button
        type="button"
        aria-label="Zoom in"
        onClick={() => applyScale(zoomAround(scaleRef.current, timeWidthPx / 2, 0.5, timeWidthPx))}
      >
        +
      </button>
      <button
        type="button"
        aria-label="Zoom out"
        onClick={() => applyScale(zoomAround(scaleRef.current, timeWidthPx / 2, 2, timeWidthPx))}
      >
        −
      </button>
      <button
        type="button"
        aria-label="Earlier"
        onClick={() => applyScale(panBy(scaleRef.current, -timeWidthPx / 4))}
      >
        ◀
      </button>
      <button
        type="button"
        onClick={() =>
          applyScale({
            ...scaleRef.current,
            originMs: nowMs - timeWidthPx * NOW_AT_FRACTION * scaleRef.current.msPerPx,
          })
        }
      >
        Now
      </button>
      <button
        type="button"
        aria-label="Later"
        onClick={() => applyScale(panBy(scaleRef.current, timeWidthPx / 4))}
      >
        ▶
      </button>
      {props.readOnlyWhy !== undefined ? (
        <span className="timeline-read-only">
          Read only<span className="visually-hidden">: {props.readOnlyWhy}</span>
        </span>
      ) : null}
      {props.readOnly ? null : (
        <button type="button" onClick={props.onNewCommand} disabled={!props.focusedDeviceName}>
          New command{props.focusedDeviceName ? ` for ${props.focusedDeviceName}` : ''}
        </button>
      )}
    </div>
  );
}
