import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import '#client/testing/render.tsx';
import { adelaideDepot, BATTERY_D, harbourPlant } from '#client/testing/test-devices.ts';
import { buildRows } from '../../lib/rows.ts';
import { AccessibleRows } from '../accessible-rows.tsx';

describe("the timeline's row names", () => {
  it('say a device is faulted or offline, and that its site is on a fixed offset unless shown in UTC', () => {
    const { rows } = buildRows([
      adelaideDepot([{ ...BATTERY_D, faulted: true }]),
      harbourPlant([{ ...BATTERY_D, deviceId: 'BAT-EU-001-Z', name: 'Battery Z', online: false }]),
    ]);
    const props = {
      rows,
      first: 0,
      last: rows.length - 1,
      barsByDevice: new Map(),
      range: { startMs: 0, endMs: 1 },
      selectedBarId: undefined,
      nowMs: 0,
    };
    const { rerender } = render(<AccessibleRows {...props} utc={false} />);
    expect(screen.getAllByRole('rowheader').map((header) => header.textContent)).toEqual([
      'Battery D (BAT-AU-002-D, faulted, Adelaide Depot, UTC+09:30, fixed)',
      'Battery Z (BAT-EU-001-Z, offline, Harbour plant)',
    ]);
    rerender(<AccessibleRows {...props} utc />);
    expect(screen.getAllByRole('rowheader')[0]?.textContent).toBe(
      'Battery D (BAT-AU-002-D, faulted, Adelaide Depot)',
    );
  });
});
