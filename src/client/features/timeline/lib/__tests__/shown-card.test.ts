import { describe, expect, it } from 'vitest';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';
import { TWO_ZONE_SITES } from '#client/testing/test-devices.ts';
import { toBar } from '../bars.ts';
import { ghostId, type GhostWindow } from '../ghosts.ts';
import { shownCard } from '../shown-card.ts';

const [site] = TWO_ZONE_SITES;
const [device] = site?.devices ?? [];
if (!site || !device) throw new Error('the fixture has no Berlin plant battery');
const row = { site, device };
const bar = toBar(RECEIVED_RECORD);
const ghost: GhostWindow = {
  id: ghostId('2'),
  startMs: bar.endMs,
  endMs: bar.endMs + 3_600_000,
  name: 'Plan line 2',
};
const keyboard = {
  gridFocused: true,
  keyboardLast: true,
  focused: { ...row, bar },
  focusedRowTopPx: 100,
  xOfMs: (ms: number) => (ms - bar.startMs) / 60_000 + 200,
};

describe('shownCard', () => {
  it('shows the keyboard-focused window at its start, under its half of the row', () => {
    expect(shownCard({ ...keyboard, hoverBar: undefined, hoverGhost: undefined })).toMatchObject({
      bar,
      x: 200,
      y: 118,
    });
    const onGhost = shownCard({
      ...keyboard,
      focused: { ...row, ghost },
      hoverBar: undefined,
      hoverGhost: undefined,
    });
    expect(onGhost).toMatchObject({
      ghost,
      x: 200 + (ghost.startMs - bar.startMs) / 60_000,
      y: 134,
    });
  });

  it('shows one card, of what the pointer is over once it moved after the keys', () => {
    const pointer = { ...keyboard, keyboardLast: false };
    const hoverGhost = { ...row, ghost, x: 640, y: 90 };
    expect(shownCard({ ...pointer, hoverBar: undefined, hoverGhost })).toEqual(hoverGhost);
    const hoverBar = { ...row, bar, x: 420, y: 70 };
    expect(
      shownCard({ ...pointer, focused: { ...row, ghost }, hoverBar, hoverGhost: undefined }),
    ).toEqual(hoverBar);
    // Over no window, the pointer leaves the focused window's card where it was.
    expect(shownCard({ ...pointer, hoverBar: undefined, hoverGhost: undefined })).toMatchObject({
      bar,
      x: 200,
      y: 118,
    });
  });

  it('shows the focused window after a key, though the pointer rests on another window', () => {
    const hoverGhost = { ...row, ghost, x: 640, y: 90 };
    expect(shownCard({ ...keyboard, hoverBar: undefined, hoverGhost })).toMatchObject({
      bar,
      x: 200,
      y: 118,
    });
  });

  it('shows no card for a focused window while the grid has no keyboard focus', () => {
    expect(
      shownCard({ ...keyboard, gridFocused: false, hoverBar: undefined, hoverGhost: undefined }),
    ).toBeUndefined();
  });
});
