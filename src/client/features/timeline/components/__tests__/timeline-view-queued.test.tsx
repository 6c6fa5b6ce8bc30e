import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';
import { TWO_ZONE_SITES } from '#client/testing/test-devices.ts';
import { toBar } from '../../lib/bars.ts';
import type { GhostWindow } from '../../lib/ghosts.ts';
import { DeviceOverlapIndex } from '../../lib/overlap-index.ts';
import {
  queuedIndexedWindows,
  queuedWindowsOf,
  withQueuedCancels,
} from '../../lib/queued-windows.ts';
import { TimelineView, type TimelineViewProps } from '../timeline-view.tsx';
import { timelineViewProps } from './support/view-props.ts';

afterEach(cleanup);

/*
 * As in timeline-view-editing.test.tsx: the canvas is 1000 px wide, 800 px of time showing the Day
 * preset from 04:00 UTC, 108 s per pixel; Battery A's row is 34 px under the axis (44) and the
 * Berlin site (26). A row holding ghosts draws its bars in its upper half, ghosts in its lower.
 */
const ORIGIN = Date.parse('2026-11-21T04:00:00Z');
const xOf = (iso: string) => 200 + (Date.parse(iso) - ORIGIN) / (86_400_000 / 800);
const UPPER_A_Y = 44 + 26 + 8;
const LOWER_A_Y = 44 + 26 + 26;

const NOW = Date.parse('2026-11-21T10:00:00Z');
const DEVICE = RECEIVED_RECORD.deviceId;
const AT = '2026-11-21T10:00:00Z';

/** Battery A: a replace of cmd_1 waiting, its cancel at 10:00:30 UTC, its new window at 10:01:00. */
const REPLACE: QueuedChangeStatus = {
  id: 'chg_7',
  kind: 'replace',
  state: 'queued',
  deviceIds: [DEVICE],
  steps: [
    {
      call: 'cancel',
      deviceIds: [DEVICE],
      state: 'waiting',
      plannedAt: '2026-11-21T10:00:30Z',
      commandId: RECEIVED_RECORD.id,
    },
    {
      call: 'submit',
      deviceIds: [DEVICE],
      state: 'waiting',
      plannedAt: '2026-11-21T10:01:00Z',
      command: {
        powerControl: { targetBatteryPowerW: 3000 },
        startTime: '2026-11-21T15:00:00Z',
        endTime: '2026-11-21T16:00:00Z',
      },
    },
  ],
  createdAt: AT,
  updatedAt: AT,
};

function renderView(overrides: Partial<TimelineViewProps> = {}) {
  const queued = queuedWindowsOf([REPLACE], () => 'Europe/Berlin');
  const bars = withQueuedCancels(
    new Map([[DEVICE, [toBar(RECEIVED_RECORD)]]]),
    queued.cancelsByCommand,
    () => 'Europe/Berlin',
  );
  const props = timelineViewProps(TWO_ZONE_SITES, bars, NOW, {
    overlapIndex: (id) =>
      new DeviceOverlapIndex([
        ...(bars.get(id) ?? []),
        ...queuedIndexedWindows(queued.ghostsByDevice.get(id) ?? []),
      ]),
    ghostsByDevice: queued.ghostsByDevice,
    ...overrides,
  });
  render(<TimelineView {...props} />);
  const grid = screen.getByRole('grid', { name: 'Command timeline' });
  return { grid, props };
}

describe('queued changes on the timeline', () => {
  it('lists the queued window read-only with when it goes, and marks the command whose cancel waits', () => {
    renderView();
    const queuedCell = screen.getByRole('gridcell', {
      name: /^Battery A: queued change, not sent yet, 3 kW discharge, Sat 21 Nov 16:00–17:00 Europe\/Berlin, goes at 11:01:00 site time \(10:01:00 UTC\); it cannot be moved/,
    });
    expect(queuedCell.getAttribute('aria-readonly')).toBe('true');
    expect(queuedCell.getAttribute('data-ghost')).toBe('queued');
    expect(
      screen.getByRole('gridcell', {
        name: /Received \(pending\), cancel queued, goes at 11:00:30 site time \(10:00:30 UTC\)$/,
      }),
    ).toBeTruthy();
  });

  it('says why a queued window stays where it is, and opens its menu with Shift+F10', async () => {
    const withdraw = vi.fn();
    const ghostMenuActions = vi.fn((_target: unknown, ghost: GhostWindow) => [
      { id: 'withdraw', label: `Withdraw ${ghost.queued?.changeId ?? ''}`, onAction: withdraw },
      { id: 'queued-changes', label: 'Open queued changes', onAction: vi.fn() },
    ]);
    const { grid, props } = renderView({ ghostMenuActions, barMenuActions: () => [] });
    fireEvent.focus(grid);
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    const active = document.getElementById(grid.getAttribute('aria-activedescendant') ?? '');
    expect(active?.textContent).toMatch(/queued change, not sent yet/);
    expect(screen.getByRole('tooltip').textContent).toContain(
      'Goes at 11:01:00 site time (10:01:00 UTC); it cannot be moved or resized until it is sent',
    );

    fireEvent.keyDown(grid, { key: ' ' });
    expect(screen.getByRole('alert').textContent).toMatch(
      /^This queued change goes at 11:01:00 site time \(10:01:00 UTC\); it cannot be moved/,
    );
    expect(props.onMoveBar).not.toHaveBeenCalled();

    expect(
      screen.getByRole('button', {
        name: 'Actions for the queued change on Battery A (Queued, goes at 11:01:00)',
      }),
    ).toBeTruthy();
    fireEvent.keyDown(grid, { key: 'F10', shiftKey: true });
    const menu = await screen.findByRole('menu');
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(within(menu).getByRole('menuitem', { name: 'Open queued changes' })).toBeTruthy();
    expect(document.activeElement?.textContent).toBe('Withdraw chg_7');
    fireEvent.keyDown(document.activeElement ?? menu, { key: 'Enter' });
    fireEvent.keyUp(document.activeElement ?? menu, { key: 'Enter' });
    expect(withdraw).toHaveBeenCalledOnce();
  });

  it('refuses a window drawn over the queued one, beside the pointer, and sends nothing', () => {
    const { props } = renderView();
    const canvas = screen.getByTestId('timeline-canvas');
    const at = (iso: string) => ({
      clientX: xOf(iso),
      clientY: UPPER_A_Y,
      button: 0,
      pointerId: 1,
    });
    fireEvent.pointerDown(canvas, at('2026-11-21T14:30:00Z'));
    fireEvent.pointerMove(canvas, at('2026-11-21T15:00:00Z'));
    fireEvent.pointerMove(canvas, at('2026-11-21T15:30:00Z'));
    expect(screen.getByRole('alert').textContent).toBe(
      'Refused: overlaps a queued change that goes at 11:01:00 site time (10:01:00 UTC) (Sat 21 Nov 16:00–17:00 Europe/Berlin). Withdraw it first, or choose a window that only touches it.',
    );
    fireEvent.pointerUp(canvas, at('2026-11-21T15:30:00Z'));
    expect(props.onCreateWindow).not.toHaveBeenCalled();
  });

  it("opens the queued window's menu on a right-click in the row's lower half, the command's above", async () => {
    const ghostMenuActions = vi.fn(() => [
      { id: 'queued-changes', label: 'Open queued changes', onAction: vi.fn() },
    ]);
    const barMenuActions = vi.fn(() => [{ id: 'copy', label: 'Copy window', onAction: vi.fn() }]);
    renderView({ ghostMenuActions, barMenuActions });
    const canvas = screen.getByTestId('timeline-canvas');
    fireEvent.contextMenu(canvas, { clientX: xOf('2026-11-21T15:30:00Z'), clientY: LOWER_A_Y });
    expect(await screen.findByRole('menuitem', { name: 'Open queued changes' })).toBeTruthy();
    expect(ghostMenuActions).toHaveBeenLastCalledWith(
      expect.objectContaining({ device: expect.objectContaining({ deviceId: DEVICE }) }),
      expect.objectContaining({ queued: expect.objectContaining({ changeId: 'chg_7' }) }),
    );
    expect(barMenuActions).not.toHaveBeenCalled();
  });
});
