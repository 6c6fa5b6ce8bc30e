import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';
import { TWO_ZONE_SITES } from '#client/testing/test-devices.ts';
import { toBar, type Bar } from '../../lib/bars.ts';
import { TimelineView, type TimelineViewProps } from '../timeline-view.tsx';
import { timelineViewProps } from './support/view-props.ts';

afterEach(cleanup);

/*
 * The canvas in these tests keeps its first size, 1000 px wide: 800 px of time showing the Day
 * preset from 04:00 UTC (now, 10:00 UTC, a quarter from the left), 108 s per pixel. Rows from the
 * canvas top: the axis (44 px), the Berlin site (26), Battery A (34), Battery B (34).
 */
const NOW = Date.parse('2026-11-21T10:00:00Z');
const ORIGIN = NOW - 6 * 3_600_000;
const MS_PER_PX = 86_400_000 / 800;
const xOf = (iso: string) => 200 + (Date.parse(iso) - ORIGIN) / MS_PER_PX;
const BATTERY_A_Y = 44 + 26 + 17;
const BATTERY_B_Y = 44 + 26 + 34 + 17;

// Battery A holds the received 13:00–14:00 UTC window (14:00–15:00 in Berlin).
const received = toBar(RECEIVED_RECORD);
// Battery B holds one that starts a minute from now: within the lead time.
const soon = toBar({
  ...RECEIVED_RECORD,
  id: 'cmd_soon',
  deviceId: 'BAT-EU-001-B',
  startTime: '2026-11-21T10:01:00Z',
  endTime: '2026-11-21T11:00:00Z',
});
const bars = new Map<string, Bar[]>([
  ['BAT-EU-001-A', [received]],
  ['BAT-EU-001-B', [soon]],
]);

function renderView(overrides: Partial<TimelineViewProps> = {}) {
  const props = timelineViewProps(TWO_ZONE_SITES, bars, NOW, overrides);
  render(<TimelineView {...props} />);
  const grid = screen.getByRole('grid', { name: 'Command timeline' });
  const canvas = screen.getByTestId('timeline-canvas');
  return { props, grid, canvas };
}

/**
 * Presses on the row at `y` (canvas CSS pixels) at the instant `fromIso`, moves along the row to
 * `toIso` in steps, and releases unless told.
 */
function dragAlongRow(
  canvas: HTMLElement,
  y: number,
  fromIso: string,
  toIso: string,
  release = true,
) {
  const from = { x: xOf(fromIso), y };
  const to = { x: xOf(toIso), y };
  const at = (p: { x: number; y: number }) => ({
    clientX: p.x,
    clientY: p.y,
    button: 0,
    pointerId: 1,
  });
  fireEvent.pointerDown(canvas, at(from));
  for (let step = 1; step <= 4; step++)
    fireEvent.pointerMove(
      canvas,
      at({ x: from.x + ((to.x - from.x) * step) / 4, y: from.y + ((to.y - from.y) * step) / 4 }),
    );
  if (release) fireEvent.pointerUp(canvas, at(to));
}

/** The polite announcement of the view (visually hidden). */
const announced = () =>
  screen
    .getAllByRole('status')
    .map((node) => node.textContent ?? '')
    .join(' | ');

describe('the start–end readout', () => {
  it('follows a drawing drag on the site clock and is said once the drag ends', () => {
    const { canvas, props } = renderView();
    dragAlongRow(canvas, BATTERY_A_Y, '2026-11-21T15:00:00Z', '2026-11-21T16:30:00Z', false);
    // 16:00–17:30 on the Berlin clock.
    expect(screen.getByTestId('timeline-readout').textContent).toBe('16:00–17:30 · 1 h 30 min');
    expect(screen.getByTestId('timeline-readout').getAttribute('aria-hidden')).toBe('true');
    fireEvent.pointerUp(canvas, { clientX: xOf('2026-11-21T16:30:00Z'), clientY: BATTERY_A_Y });
    expect(screen.queryByTestId('timeline-readout')).toBeNull();
    expect(announced()).toContain('New window Sat 21 Nov 16:00–17:30 Europe/Berlin, 1 h 30 min.');
    expect(props.onCreateWindow).toHaveBeenCalledWith(
      expect.objectContaining({ device: expect.objectContaining({ deviceId: 'BAT-EU-001-A' }) }),
      { startMs: Date.parse('2026-11-21T15:00:00Z'), endMs: Date.parse('2026-11-21T16:30:00Z') },
    );
  });

  it('moves a window with the keys: Space picks it up, arrows move it, Enter sends the move', () => {
    const { grid, props } = renderView();
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    fireEvent.keyDown(grid, { key: ' ' });
    expect(announced()).toMatch(
      /Moving command cmd_1, Sat 21 Nov 14:00–15:00 Europe\/Berlin, 1 h\./,
    );
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    fireEvent.keyDown(grid, { key: 'ArrowRight', shiftKey: true });
    expect(screen.getByTestId('timeline-readout').textContent).toBe('14:10–15:15 · 1 h 5 min');
    expect(announced()).toContain('Sat 21 Nov 14:10–15:15 Europe/Berlin, 1 h 5 min');
    expect(props.onMoveBar).not.toHaveBeenCalled();
    fireEvent.keyDown(grid, { key: 'Enter' });
    expect(props.onMoveBar).toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ id: 'cmd_1' }),
      {
        startMs: Date.parse('2026-11-21T13:10:00Z'),
        endMs: Date.parse('2026-11-21T14:15:00Z'),
      },
    );
    expect(screen.queryByTestId('timeline-readout')).toBeNull();
  });

  it('leaves a picked-up window where it was on Escape', () => {
    const { grid, props } = renderView();
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    fireEvent.keyDown(grid, { key: 'm' });
    fireEvent.keyDown(grid, { key: 'ArrowLeft' });
    fireEvent.keyDown(grid, { key: 'Escape' });
    fireEvent.keyDown(grid, { key: 'Enter' });
    expect(props.onMoveBar).not.toHaveBeenCalled();
    // Enter, the window put down, opens it again.
    expect(props.onSelectBar).toHaveBeenCalledOnce();
  });
});

describe('a window that may no longer change', () => {
  it('says why on a drag or a key instead of moving, and is read-only in the grid', () => {
    const { canvas, grid, props } = renderView();
    expect(document.getElementById('tl-bar-cmd_soon')?.getAttribute('aria-readonly')).toBe('true');
    expect(document.getElementById('tl-bar-cmd_1')?.getAttribute('aria-readonly')).toBeNull();
    dragAlongRow(canvas, BATTERY_B_Y, '2026-11-21T10:30:00Z', '2026-11-21T12:00:00Z');
    const why =
      'Command cmd_soon starts at 11:01, within 2 minutes of now: a change could not reach the device before it starts. Cancel it if it must not run.';
    expect(screen.getByText(why)).toBeTruthy();
    expect(props.onMoveBar).not.toHaveBeenCalled();
    // The drag was an attempt to move, not a click: the details do not open.
    expect(props.onSelectBar).not.toHaveBeenCalled();

    // The press focused Battery B's row; a key clears what the drag said and says it again.
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    expect(screen.queryByText(why)).toBeNull();
    fireEvent.keyDown(grid, { key: ' ' });
    expect(screen.getByText(why)).toBeTruthy();
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    expect(props.onMoveBar).not.toHaveBeenCalled();
  });
});

describe('a viewer', () => {
  const words = 'Viewers can look but not schedule: ask for the dispatcher role.';

  it('is told why a drag or a change key does nothing, and sees the view is read-only', () => {
    const { canvas, grid, props } = renderView({ changeRefusal: words });
    expect(screen.getByText('Read only')).toBeTruthy();
    expect(grid.getAttribute('aria-readonly')).toBe('true');
    expect(screen.queryByRole('button', { name: /^New command/ })).toBeNull();
    dragAlongRow(canvas, BATTERY_A_Y, '2026-11-21T15:00:00Z', '2026-11-21T16:30:00Z');
    expect(screen.getByText(words, { selector: '.timeline-message' })).toBeTruthy();
    expect(props.onCreateWindow).not.toHaveBeenCalled();
    expect(screen.queryByTestId('timeline-readout')).toBeNull();

    // A drag on the received window: the same words, nothing moved.
    dragAlongRow(canvas, BATTERY_A_Y, '2026-11-21T13:30:00Z', '2026-11-21T15:00:00Z');
    expect(screen.getByText(words, { selector: '.timeline-message' })).toBeTruthy();
    expect(props.onMoveBar).not.toHaveBeenCalled();

    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    fireEvent.keyDown(grid, { key: ' ' });
    expect(screen.getByText(words, { selector: '.timeline-message' })).toBeTruthy();
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    fireEvent.keyDown(grid, { key: 'Enter' });
    expect(props.onMoveBar).not.toHaveBeenCalled();
    // Enter on the window still opens it (to read).
    expect(props.onSelectBar).toHaveBeenCalledOnce();
  });

  it('is told why when Enter on an empty row would schedule', () => {
    const { grid, props } = renderView({ changeRefusal: words });
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    fireEvent.keyDown(grid, { key: 'Enter' });
    expect(screen.getByText(words, { selector: '.timeline-message' })).toBeTruthy();
    expect(props.onNewCommand).not.toHaveBeenCalled();
  });
});

describe('copy and paste', () => {
  it('copies the focused window and pastes after it, or on every chosen row', () => {
    const onCopyBar = vi.fn();
    const onPaste = vi.fn(() => undefined);
    const { grid } = renderView({ onCopyBar, onPaste });
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    fireEvent.keyDown(grid, { key: 'c', ctrlKey: true });
    expect(onCopyBar).toHaveBeenCalledWith(
      expect.objectContaining({ device: expect.objectContaining({ deviceId: 'BAT-EU-001-A' }) }),
      expect.objectContaining({ id: 'cmd_1' }),
    );
    fireEvent.keyDown(grid, { key: 'v', metaKey: true });
    expect(onPaste).toHaveBeenLastCalledWith(
      [expect.objectContaining({ device: expect.objectContaining({ deviceId: 'BAT-EU-001-A' }) })],
      received.endMs,
    );

    fireEvent.keyDown(grid, { key: 'ArrowDown', shiftKey: true });
    expect(announced()).toContain('2 rows chosen for a paste.');
    expect(screen.getAllByRole('row', { selected: true })).toHaveLength(2);
    fireEvent.keyDown(grid, { key: 'v', ctrlKey: true });
    const [targets] = onPaste.mock.lastCall as unknown as [{ device: { deviceId: string } }[]];
    expect(targets.map((target) => target.device.deviceId)).toEqual([
      'BAT-EU-001-A',
      'BAT-EU-001-B',
    ]);
  });

  it('pastes under the pointer at its snapped time, and shows a refusal as an alert', () => {
    const onPaste = vi.fn(() => 'Refused: overlaps command cmd_1.');
    const { grid, canvas } = renderView({ onCopyBar: vi.fn(), onPaste });
    fireEvent.pointerMove(canvas, { clientX: xOf('2026-11-21T17:02:00Z'), clientY: BATTERY_B_Y });
    fireEvent.keyDown(grid, { key: 'v', ctrlKey: true });
    expect(onPaste).toHaveBeenCalledWith(
      [expect.objectContaining({ device: expect.objectContaining({ deviceId: 'BAT-EU-001-B' }) })],
      Date.parse('2026-11-21T17:00:00Z'),
    );
    expect(screen.getByRole('alert').textContent).toBe('Refused: overlaps command cmd_1.');
  });

  it('tells a viewer a paste would change something', () => {
    const onPaste = vi.fn();
    const { grid } = renderView({
      changeRefusal: 'Viewers can look but not schedule: ask for the dispatcher role.',
      onCopyBar: vi.fn(),
      onPaste,
    });
    fireEvent.keyDown(grid, { key: 'v', ctrlKey: true });
    expect(onPaste).not.toHaveBeenCalled();
    expect(
      screen.getByText(/^Viewers can look but not schedule/, { selector: '.timeline-message' }),
    ).toBeTruthy();
  });
});

describe('the window menu', () => {
  it('opens on the focused window with Shift+F10, first choice focused, and acts on it', async () => {
    const copy = vi.fn();
    const barMenuActions = vi.fn((_target: unknown, bar: Bar) => [
      { id: 'copy', label: `Copy ${bar.id}`, onAction: copy },
      { id: 'history', label: 'Open history', onAction: vi.fn() },
    ]);
    const { grid } = renderView({ barMenuActions });
    fireEvent.focus(grid);
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    expect(
      screen.getByRole('button', { name: 'Actions for command cmd_1 on Battery A' }),
    ).toBeTruthy();
    fireEvent.keyDown(grid, { key: 'F10', shiftKey: true });
    const menu = await screen.findByRole('menu');
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(document.activeElement?.textContent).toBe('Copy cmd_1');
    fireEvent.keyDown(document.activeElement ?? menu, { key: 'Enter' });
    fireEvent.keyUp(document.activeElement ?? menu, { key: 'Enter' });
    expect(copy).toHaveBeenCalledOnce();
    expect(within(document.body).queryByRole('menu')).toBeNull();
  });

  it('opens on a right-click on a window', async () => {
    const barMenuActions = vi.fn(() => [{ id: 'copy', label: 'Copy window', onAction: vi.fn() }]);
    const { canvas } = renderView({ barMenuActions });
    fireEvent.contextMenu(canvas, { clientX: xOf('2026-11-21T13:30:00Z'), clientY: BATTERY_A_Y });
    expect(await screen.findByRole('menuitem', { name: 'Copy window' })).toBeTruthy();
    expect(barMenuActions).toHaveBeenLastCalledWith(
      expect.objectContaining({ device: expect.objectContaining({ deviceId: 'BAT-EU-001-A' }) }),
      expect.objectContaining({ id: 'cmd_1' }),
    );
  });
});
