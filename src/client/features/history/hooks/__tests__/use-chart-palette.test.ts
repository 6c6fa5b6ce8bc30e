import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDesignTokens } from '#client/lib/design-tokens.ts';
import { installDesignTokens } from '#client/testing/design-tokens.ts';
import { OUTCOME_KEYS } from '../../lib/outcomes-by-day.ts';
import { chartPaletteOf } from '../use-chart-palette.ts';

describe('chartPaletteOf', () => {
  let remove: () => void = () => {};
  beforeEach(() => {
    remove = installDesignTokens();
  });
  afterEach(() => remove());

  it('takes every colour from the design tokens: statuses, reasons, power controls, surfaces', () => {
    const tokens = readDesignTokens();
    const palette = chartPaletteOf(tokens);
    expect(palette.background).toBe(tokens.surface);
    expect(palette.grid).toBe(tokens.border);
    expect(palette.axis).toBe(tokens.muted);
    expect(palette.outcomes.completed).toBe(tokens.status.completed.fill);
    expect(palette.outcomes['cancelled:deviceFault']).toBe(tokens.reason.deviceFault);
    expect(palette.outcomes['cancelled:manuallyCancel']).toBe(tokens.reason.manuallyCancel);
    // A cancellation the upstream gave no reason for takes the cancelled status's fill.
    expect(palette.outcomes['cancelled:unknown']).toBe(tokens.status.cancelled.fill);
    expect(palette.series.targetBatteryPowerW).toBe(tokens.powerControl.targetBatteryPowerW);
    expect(Object.keys(palette.outcomes).sort()).toEqual([...OUTCOME_KEYS].sort());
    for (const colour of [...Object.values(palette.outcomes), ...Object.values(palette.series)])
      expect(colour).toMatch(/^#[0-9a-f]{6}$/i);
  });
});
