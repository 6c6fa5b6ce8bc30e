import {
  useCallback,
  useId,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
  type ReactNode,
} from 'react';
import './chart.css';

/** A horizontal extent on a chart, px from the plot's left. */
export interface SpanPx {
  leftPx: number;
  rightPx: number;
}

/** One entry of a chart's legend: its words, its colour and the mark drawn for it. */
export interface LegendEntry {
  label: string;
  color: string;
  /** `area`: a filled bar; `line`: a solid line; `dashed`: a dashed line. */
  mark: 'area' | 'line' | 'dashed';
}

/** Something the tooltip can show: where it is drawn (px from the plot's left) and its words. */
export interface ChartTarget extends SpanPx {
  key: string;
  lines: readonly string[];
}

/** How far from a target the pointer may be and still show it, in px. */
const NEAR_PX = 12;
const TOOLTIP_GAP_PX = 12;

/** The target under `xPx`, else the nearest within {@link NEAR_PX}, else `null`. */
export function targetAt(targets: readonly SpanPx[], xPx: number): number | null {
  let nearest: number | null = null;
  let nearestPx = NEAR_PX;
  for (const [index, target] of targets.entries()) {
    if (xPx >= target.leftPx && xPx <= target.rightPx) return index;
    const distancePx = Math.min(Math.abs(xPx - target.leftPx), Math.abs(xPx - target.rightPx));
    if (distancePx <= nearestPx) {
      nearest = index;
      nearestPx = distancePx;
    }
  }
  return nearest;
}

interface ChartFrameProps {
  widthPx: number;
  measureRef: (element: HTMLDivElement | null) => (() => void) | undefined;
  label: string;
  summaryId: string;
  heightPx: number;
  targets: readonly ChartTarget[];
  legend: readonly LegendEntry[];
  /** Draws the chart (once `widthPx` is known), with the target the tooltip shows, if any. */
  children: (activeIndex: number | null) => ReactNode;
}

/**
 * A chart's frame: container-wide (follows resizes), a tooltip for the target under the pointer,
 * tapped or chosen with arrows/Home/End (placed beside it, never over it), and the legend as a
 * list. The plot is one focusable image named by `label`, described by its summary.
 */
export function ChartFrame(props: ChartFrameProps) {
  const { widthPx, measureRef, label, summaryId, heightPx, targets, legend, children } = props;
  const plot = useRef<HTMLDivElement | null>(null);
  const plotRef = useCallback(
    (element: HTMLDivElement | null) => {
      plot.current = element;
      return measureRef(element);
    },
    [measureRef],
  );
  const tooltipId = useId();
  const [active, setActive] = useState<number | null>(null);
  const activeIndex = active !== null && active < targets.length ? active : null;
  const target = activeIndex === null ? undefined : targets[activeIndex];

  const onKeyDown = (event: KeyboardEvent) => {
    const last = targets.length - 1;
    if (last < 0) return;
    const next: Record<string, () => number | null> = {
      ArrowRight: () => (activeIndex === null ? 0 : Math.min(last, activeIndex + 1)),
      ArrowDown: () => (activeIndex === null ? 0 : Math.min(last, activeIndex + 1)),
      ArrowLeft: () => (activeIndex === null ? last : Math.max(0, activeIndex - 1)),
      ArrowUp: () => (activeIndex === null ? last : Math.max(0, activeIndex - 1)),
      Home: () => 0,
      End: () => last,
      Escape: () => null,
    };
    const move = next[event.key];
    if (!move || (event.key === 'Escape' && activeIndex === null)) return;
    event.preventDefault();
    setActive(move());
  };

  const point = (event: PointerEvent) => {
    const left = plot.current?.getBoundingClientRect().left ?? 0;
    setActive(targetAt(targets, event.clientX - left));
  };

  const besideRight = target ? target.leftPx + target.rightPx < widthPx : true;
  const tooltipStyle = target
    ? besideRight
      ? { left: target.rightPx + TOOLTIP_GAP_PX }
      : { right: widthPx - target.leftPx + TOOLTIP_GAP_PX }
    : {};

  return (
    <div className="chart-frame">
      <div
        ref={plotRef}
        className="chart-plot"
        style={{ height: heightPx }}
        tabIndex={0}
        role="img"
        aria-label={label}
        aria-describedby={target ? `${summaryId} ${tooltipId}` : summaryId}
        onKeyDown={onKeyDown}
        onBlur={() => setActive(null)}
        // A tap ends with pointerleave at once: its tooltip stays until the plot loses focus.
        onPointerLeave={(event) => {
          if (event.pointerType !== 'touch') setActive(null);
        }}
        onPointerDown={point}
        onPointerMove={point}
      >
        {widthPx > 0 ? children(activeIndex) : null}
      </div>
      {target ? (
        <div id={tooltipId} role="tooltip" className="chart-tooltip" style={tooltipStyle}>
          {target.lines.map((line, index) => (
            <span key={index} className={index === 0 ? 'chart-tooltip-head' : undefined}>
              {line}
            </span>
          ))}
        </div>
      ) : null}
      {legend.length > 0 ? (
        <ul className="chart-legend" aria-label="Legend">
          {legend.map((entry) => (
            <li key={entry.label}>
              <span
                aria-hidden="true"
                className={`legend-mark legend-${entry.mark}`}
                style={{ color: entry.color }}
              />
              {entry.label}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
