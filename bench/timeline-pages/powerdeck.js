/* global document */
/**
 * The real timeline view (`TimelineView`) with the bench fleet in memory: bars and
 * overlap indexes built as `useTimelineBars` builds them, no network, so the comparison with
 * vis-timeline and the canvas page is rendering against rendering.
 */
import { createElement as h } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { TimelineView } from '#client/features/timeline/components/timeline-view.tsx';
import { toBar } from '#client/features/timeline/lib/bars.ts';
import { DeviceOverlapIndex } from '#client/features/timeline/lib/overlap-index.ts';
import { exposeBench } from './harness.js';

const container = document.getElementById('root');
let root;

const noop = () => undefined;
const center = (selector, dy = 0) => {
  const rect = document.querySelector(selector).getBoundingClientRect();
  return {
    x: Math.round(rect.left + rect.width / 2),
    y: Math.round(rect.top + rect.height / 2 + dy),
  };
};

exposeBench({
  mount(fleet, nowMs) {
    const barsByDevice = new Map();
    for (const [deviceId, records] of fleet.recordsByDevice)
      barsByDevice.set(deviceId, records.map(toBar));
    const indexes = new Map();
    const overlapIndex = (deviceId) => {
      let index = indexes.get(deviceId);
      const bars = barsByDevice.get(deviceId);
      if (!index && bars) indexes.set(deviceId, (index = new DeviceOverlapIndex(bars)));
      return index;
    };
    root = createRoot(container);
    flushSync(() =>
      root.render(
        h(TimelineView, {
          sites: fleet.sites,
          filter: '',
          barsByDevice,
          overlapIndex,
          nowMs,
          utc: false,
          snapMs: 300_000,
          selectedBarId: undefined,
          heightPx: 600,
          onViewportChange: noop,
          onCreateWindow: noop,
          onSelectBar: noop,
          onMoveBar: noop,
          onNewCommand: noop,
        }),
      ),
    );
  },
  unmount() {
    root?.unmount();
    root = undefined;
  },
  scrollTarget: () => center('.timeline-scroller'),
  // The axis strip pans; a drag below it draws a new window.
  panTarget: () => {
    const rect = document.querySelector('[data-testid="timeline-canvas"]').getBoundingClientRect();
    return { x: Math.round(rect.left + rect.width / 2), y: Math.round(rect.top + 18) };
  },
  drawTarget: () => {
    const rect = document.querySelector('[data-testid="timeline-canvas"]').getBoundingClientRect();
    // Second device row of the first site: axis 44 px, site row 26 px, device rows 34 px.
    return { x: Math.round(rect.left + 260), y: Math.round(rect.top + 44 + 26 + 34 + 17) };
  },
});
