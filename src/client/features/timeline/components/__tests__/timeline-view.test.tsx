import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';

afterEach(cleanup);
import { toBar, type Bar } from '../../lib/bars.ts';
import { ghostId, ghostsByDevice } from '../../lib/ghosts.ts';
import { TimelineView, type TimelineViewProps } from '../timeline-view.tsx';
import { timelineViewProps } from './support/view-props.ts';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';
import { TWO_ZONE_SITES } from '#client/testing/test-devices.ts';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const sites = TWO_ZONE_SITES;
const record = RECEIVED_RECORD;
const bars = new Map<string, Bar[]>([['BAT-EU-001-A', [toBar(record)]]]);

function renderView(overrides: Partial<TimelineViewProps> = {}) {
  const props = timelineViewProps(sites, bars, NOW, overrides);
  render(<TimelineView {...props} />);
  return props;
}

describe('TimelineView accessible layer', () => {
  it('names each bar with device, control, window on the site clock and status', () => {
    renderView();
    expect(
      screen.getByRole('gridcell', {
        name: 'Battery A: 3 kW charge, stop charging at 90%, Sat 21 Nov 14:00–15:00 Europe/Berlin, Received (pending)',
      }),
    ).toBeTruthy();
    expect(screen.getAllByRole('row')).toHaveLength(3);
  });

  it('shows times in UTC when asked', () => {
    renderView({ utc: true });
    expect(screen.getByRole('gridcell', { name: /13:00–14:00 UTC/ })).toBeTruthy();
  });

  it('moves between rows and bars with the arrow keys and opens with Enter', () => {
    const props = renderView();
    const grid = screen.getByRole('grid', { name: 'Command timeline' });
    const active = () =>
      document.getElementById(grid.getAttribute('aria-activedescendant') ?? '')?.textContent;
    expect(active()).toMatch(/^Battery A/);
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    expect(active()).toMatch(/Received \(pending\)$/);
    fireEvent.keyDown(grid, { key: 'Enter' });
    expect(props.onSelectBar).toHaveBeenCalledWith(
      expect.objectContaining({ device: sites[0]?.devices[0] }),
      expect.objectContaining({ id: 'cmd_1' }),
    );
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    expect(active()).toMatch(/^Battery AU/);
    fireEvent.keyDown(grid, { key: 'Enter' });
    expect(props.onNewCommand).toHaveBeenCalledWith(
      expect.objectContaining({ device: sites[1]?.devices[0] }),
      expect.any(Number),
    );
  });

  it('filters devices by name or ID and keeps their site header', () => {
    renderView({ filter: 'au-001' });
    expect(screen.getAllByRole('row')).toHaveLength(1);
    expect(screen.getByRole('rowheader').textContent).toMatch(/Battery AU/);
  });

  it('opens the form for the focused row from the New command button', () => {
    const props = renderView();
    fireEvent.click(screen.getByRole('button', { name: 'New command for Battery A' }));
    expect(props.onNewCommand).toHaveBeenCalledOnce();
  });
});

describe('TimelineView ghost windows', () => {
  // Two rows of a plan for Battery A: one sendable after the held command, one refused on it.
  const ghosts = ghostsByDevice([
    {
      deviceId: 'BAT-EU-001-A',
      id: ghostId('line-2'),
      name: 'Plan line 2',
      startMs: Date.parse('2026-11-21T13:30:00Z'),
      endMs: Date.parse('2026-11-21T14:30:00Z'),
      refusal: 'its window overlaps a command of this device that is waiting to start',
    },
    {
      deviceId: 'BAT-EU-001-A',
      id: ghostId('line-3'),
      name: 'Plan line 3',
      powerControl: { targetBatteryPowerW: 3000 },
      startMs: Date.parse('2026-11-21T15:00:00Z'),
      endMs: Date.parse('2026-11-21T16:00:00Z'),
    },
  ]);

  it('names each ghost for screen readers, refused ones with their reasons', () => {
    renderView({ ghostsByDevice: ghosts, readOnly: true });
    expect(
      screen.getByRole('gridcell', {
        name: 'Battery A: Plan line 2, not sent yet, Sat 21 Nov 14:30–15:30 Europe/Berlin, refused: its window overlaps a command of this device that is waiting to start',
      }),
    ).toBeTruthy();
    expect(
      screen.getByRole('gridcell', {
        name: 'Battery A: Plan line 3, not sent yet, 3 kW discharge, Sat 21 Nov 16:00–17:00 Europe/Berlin, can be sent',
      }),
    ).toBeTruthy();
  });

  it('steps through bars and ghosts by start with the arrow keys and explains the focused ghost', () => {
    const props = renderView({ ghostsByDevice: ghosts, readOnly: true });
    const grid = screen.getByRole('grid', { name: 'Command timeline' });
    fireEvent.focus(grid);
    const active = () =>
      document.getElementById(grid.getAttribute('aria-activedescendant') ?? '')?.textContent;
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    expect(active()).toMatch(/Received \(pending\)$/);
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    expect(active()).toMatch(/Plan line 2, .*refused: its window overlaps/);
    expect(screen.getByRole('tooltip').textContent).toContain(
      'Refused: its window overlaps a command of this device that is waiting to start',
    );
    expect(screen.getByRole('tooltip').textContent).toContain('13:30–14:30 UTC');
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    expect(active()).toMatch(/Plan line 3, .*can be sent$/);
    expect(screen.getByRole('tooltip').textContent).toContain('Can be sent');
    fireEvent.keyDown(grid, { key: 'Enter' });
    fireEvent.keyDown(grid, { key: 'ArrowLeft' });
    fireEvent.keyDown(grid, { key: 'ArrowLeft' });
    expect(active()).toMatch(/Received \(pending\)$/);
    // A ghost opens nothing, and a read-only view makes no new command.
    expect(props.onSelectBar).not.toHaveBeenCalled();
    expect(props.onNewCommand).not.toHaveBeenCalled();
    expect(screen.queryByRole('button', { name: /New command/ })).toBeNull();
  });
});
