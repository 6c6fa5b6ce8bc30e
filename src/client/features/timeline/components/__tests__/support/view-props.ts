/** The props the timeline view's tests render it with. */
import { vi } from 'vitest';
import type { Bar } from '#client/features/timeline/lib/bars.ts';
import { DeviceOverlapIndex } from '#client/features/timeline/lib/overlap-index.ts';
import type { TimelineViewProps } from '../../timeline-view.tsx';

/**
 * Props for a `TimelineView` showing `sites` with `bars` (by device ID) at `nowMs` (epoch ms) on
 * the site clocks, 5-minute snapping, nothing selected, each callback a `vi.fn()`; the overlap
 * index holds a device's bars. `overrides` replace any of them.
 */
export function timelineViewProps(
  sites: TimelineViewProps['sites'],
  bars: ReadonlyMap<string, readonly Bar[]>,
  nowMs: number,
  overrides: Partial<TimelineViewProps> = {},
): TimelineViewProps {
  return {
    sites,
    filter: '',
    barsByDevice: bars,
    overlapIndex: (id) => new DeviceOverlapIndex(bars.get(id) ?? []),
    nowMs,
    utc: false,
    snapMs: 300_000,
    selectedBarId: undefined,
    onViewportChange: vi.fn(),
    onCreateWindow: vi.fn(),
    onSelectBar: vi.fn(),
    onMoveBar: vi.fn(),
    onNewCommand: vi.fn(),
    ...overrides,
  };
}
