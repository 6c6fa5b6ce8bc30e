import { describe, expect, it } from 'vitest';
import type { Site } from '#domain/device.ts';
import { readDesignTokens } from '#client/lib/design-tokens.ts';
import { installDesignTokens } from '#client/testing/design-tokens.ts';
import { RECEIVED_RECORD } from '#client/testing/status-records.ts';
import { toBar, type Bar } from '../bars.ts';
import { drawFrame, LABEL_WIDTH_PX } from '../draw.ts';
import type { GhostWindow } from '../ghosts.ts';
import { buildRows } from '../rows.ts';

const site: Site = {
  siteId: 'PLANT-EU-001',
  name: 'Berlin Logistics Hub',
  timeZone: 'Europe/Berlin',
  clock: { source: 'inferred', vendorOffset: '+01:00' },
  devices: [{ deviceId: 'BAT-EU-001-A', name: 'Hall A', model: 'X', capabilities: {} }],
};

/** A 2D context that records the text written (with its height) and measures 7 px per character. */
function recordingContext() {
  const texts: { text: string; x: number; y: number }[] = [];
  const ctx = new Proxy(
    {},
    {
      get(_target, key) {
        if (key === 'fillText')
          return (text: string, x: number, y: number) => texts.push({ text, x, y });
        if (key === 'measureText') return (text: string) => ({ width: text.length * 7 });
        return () => undefined;
      },
      set: () => true,
    },
  ) as CanvasRenderingContext2D;
  return { ctx, texts };
}

/** Draws one row holding `bars` (and `ghosts`) over a day from 12:00 UTC on 2026-11-21, 1,000 px of time. */
function draw(bars: Bar[], ghosts?: GhostWindow[], nowMs?: number) {
  const remove = installDesignTokens();
  const tokens = readDesignTokens();
  remove();
  const { rows } = buildRows([site]);
  const { ctx, texts } = recordingContext();
  const originMs = Date.parse('2026-11-21T12:00:00Z');
  drawFrame(ctx, {
    widthPx: LABEL_WIDTH_PX + 1000,
    heightPx: 300,
    scale: { originMs, msPerPx: 86_400_000 / 1000 },
    rows,
    scrollTopPx: 0,
    firstRow: 0,
    lastRow: rows.length - 1,
    barsByDevice: new Map([['BAT-EU-001-A', bars]]),
    nowMs: nowMs ?? originMs,
    utc: false,
    focusedRow: -1,
    focusedBarId: undefined,
    selectedBarId: undefined,
    drag: undefined,
    moving: undefined,
    tokens,
    ...(ghosts ? { ghostsByDevice: new Map([['BAT-EU-001-A', ghosts]]) } : {}),
  });
  return texts;
}

const at = (startIso: string, endIso: string, extra: Partial<typeof RECEIVED_RECORD> = {}) =>
  toBar({ ...RECEIVED_RECORD, startTime: startIso, endTime: endIso, ...extra });

describe('site rows', () => {
  it('write the site name and zone whole, past the label column', () => {
    const texts = draw([]).map((t) => t.text);
    // 36 characters: wider than the 200 px label column at 7 px a character.
    expect(texts).toContain('Berlin Logistics Hub · Europe/Berlin');
  });
});

describe('bar labels', () => {
  it('writes the short control and the status with its mark inside a wide bar', () => {
    const texts = draw([at('2026-11-21T13:00:00Z', '2026-11-21T21:00:00Z')]).map((t) => t.text);
    expect(texts).toContain('○ 3 kW charge, stop charging at 90% · Received');
  });

  it('moves the label beside a bar too narrow for it, and never cuts it', () => {
    // 1 hour: about 42 px, too narrow for the label, with the rest of the day free beside it.
    const narrow = at('2026-11-21T13:00:00Z', '2026-11-21T14:00:00Z');
    const texts = draw([narrow]);
    const label = texts.find((t) => t.text.includes('3 kW charge'));
    expect(label?.text).toBe('○ 3 kW charge, stop charging at 90% · Received');
    expect(label?.x).toBeGreaterThan(LABEL_WIDTH_PX + 41);
    expect(texts.some((t) => t.text.includes('…') && t.text.includes('kW'))).toBe(false);
  });

  it('falls back to a shorter label, then to the mark alone, when a next bar leaves no room', () => {
    const first = at('2026-11-21T13:00:00Z', '2026-11-21T14:00:00Z', {
      id: 'cmd_a',
      status: 'cancelled',
      cancelReason: 'timeWindowOverlap',
    });
    const second = at('2026-11-21T14:10:00Z', '2026-11-22T02:00:00Z', { id: 'cmd_b' });
    const texts = draw([first, second]).map((t) => t.text);
    expect(texts).toContain('✕');
    expect(texts).toContain('○ 3 kW charge, stop charging at 90% · Received');
    expect(texts.filter((t) => t.includes('…') && t.includes('kW'))).toEqual([]);
  });

  it('names the reason of a cancelled bar in its label', () => {
    const cancelled = at('2026-11-21T13:00:00Z', '2026-11-22T01:00:00Z', {
      status: 'cancelled',
      cancelReason: 'timeWindowOverlap',
    });
    expect(draw([cancelled]).map((t) => t.text)).toContain(
      '✕ 3 kW charge, stop charging at 90% · Cancelled (overlap)',
    );
  });
});

describe('ended and live windows', () => {
  it('draws a cancelled window behind a live one and never cuts the live label at it', () => {
    // A move and an undo left a cancelled window overlapping the live one's end (the walk of
    // 25 November): the live label is written after it, whole, up to the next live window.
    const live = at('2026-11-21T13:00:00Z', '2026-11-21T14:00:00Z', { id: 'cmd_live' });
    const ghost = at('2026-11-21T13:45:00Z', '2026-11-21T15:00:00Z', {
      id: 'cmd_old',
      status: 'cancelled',
      cancelReason: 'manuallyCancel',
    });
    const texts = draw([live, ghost]);
    const liveLabel = texts.find(
      (t) => t.text === '○ 3 kW charge, stop charging at 90% · Received',
    );
    expect(liveLabel).toBeDefined();
    // The cancelled window writes only what keeps clear of the live label (7 px a character).
    const liveEnd = (liveLabel?.x ?? 0) + 7 * (liveLabel?.text.length ?? 0);
    for (const ended of texts.filter((t) => t.text.startsWith('✕')))
      expect(ended.x).toBeGreaterThan(liveEnd);
  });

  it('writes a lock instead of the mark on a window starting within the lead time', () => {
    const soon = at('2026-11-21T12:01:00Z', '2026-11-21T22:00:00Z');
    const texts = draw([soon], undefined, Date.parse('2026-11-21T12:00:00Z')).map((t) => t.text);
    expect(texts).toContain('3 kW charge, stop charging at 90% · Received');
    expect(texts.some((t) => t.startsWith('○'))).toBe(false);
  });
});

describe('ghost windows', () => {
  it('draws a plan row under the command it overlaps, a refused one marked as refused', () => {
    const held = at('2026-11-21T13:00:00Z', '2026-11-21T21:00:00Z');
    const texts = draw(
      [held],
      [
        {
          id: 'ghost-line-2',
          name: 'Plan line 2',
          startMs: Date.parse('2026-11-21T14:00:00Z'),
          endMs: Date.parse('2026-11-21T22:00:00Z'),
          refusal: 'its window overlaps a command of this device that is waiting to start',
        },
        {
          id: 'ghost-line-3',
          name: 'Plan line 3',
          powerControl: { targetBatteryPowerW: 3000 },
          startMs: Date.parse('2026-11-22T00:00:00Z'),
          endMs: Date.parse('2026-11-22T08:00:00Z'),
        },
      ],
    );
    const bar = texts.find((t) => t.text === '○ 3 kW charge, stop charging at 90% · Received');
    const refused = texts.find((t) => t.text === '✕ Plan line 2 · refused');
    const sendable = texts.find((t) => t.text === 'Plan line 3 · 3 kW discharge');
    expect(refused).toBeDefined();
    expect(sendable).toBeDefined();
    // The row's upper half holds the command, its lower half the plan's rows.
    expect(refused?.y).toBeGreaterThan(bar?.y ?? Infinity);
    expect(sendable?.y).toBe(refused?.y);
  });
});
