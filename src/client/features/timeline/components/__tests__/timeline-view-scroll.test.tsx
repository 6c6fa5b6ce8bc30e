import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { Site } from '#domain/device.ts';
import { DeviceOverlapIndex } from '../../lib/overlap-index.ts';
import { TimelineView } from '../timeline-view.tsx';

afterEach(cleanup);

const capabilities = { targetBatteryPowerW: { min: -5000, max: 5000 } };
const bigSite: Site = {
  siteId: 'PLANT-EU-001',
  name: 'Berlin plant',
  timeZone: 'Europe/Berlin',
  clock: { source: 'inferred', vendorOffset: '+01:00' },
  devices: Array.from({ length: 100 }, (_, i) => ({
    deviceId: `BAT-${String(i).padStart(3, '0')}`,
    name: `Battery ${i}`,
    model: 'X',
    capabilities,
  })),
};

function renderBigSite() {
  render(
    <TimelineView
      sites={[bigSite]}
      filter=""
      barsByDevice={new Map()}
      overlapIndex={() => new DeviceOverlapIndex([])}
      nowMs={Date.parse('2026-11-21T10:00:00Z')}
      utc={false}
      snapMs={300_000}
      selectedBarId={undefined}
      heightPx={300}
      onViewportChange={vi.fn()}
      onCreateWindow={vi.fn()}
      onSelectBar={vi.fn()}
      onMoveBar={vi.fn()}
      onNewCommand={vi.fn()}
    />,
  );
  return screen.getByRole('grid', { name: 'Command timeline' });
}

function scrollTo(grid: HTMLElement, scrollTopPx: number) {
  Object.defineProperty(grid, 'scrollTop', { value: scrollTopPx, configurable: true });
  fireEvent.scroll(grid);
}

describe('TimelineView scrolling', () => {
  it('keeps the scroll attribute current on every scroll event', () => {
    const grid = renderBigSite();
    const canvas = screen.getByTestId('timeline-canvas');
    expect(canvas.getAttribute('data-scroll-top')).toBe('0');
    scrollTo(grid, 34);
    expect(canvas.getAttribute('data-scroll-top')).toBe('34');
    expect(canvas.getAttribute('data-origin-ms')).not.toBeNull();
  });

  it('holds rows just beyond the view and renders new ones once the view leaves them', () => {
    const grid = renderBigSite();
    expect(screen.queryByRole('rowheader', { name: /^Battery 12 / })).toBeTruthy();
    expect(screen.queryByRole('rowheader', { name: /^Battery 60 / })).toBeNull();
    scrollTo(grid, 26 + 60 * 34);
    expect(screen.queryByRole('rowheader', { name: /^Battery 60 / })).toBeTruthy();
    expect(screen.queryByRole('rowheader', { name: /^Battery 12 / })).toBeNull();
  });
});
