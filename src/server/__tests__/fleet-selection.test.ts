import { describe, expect, it } from 'vitest';
import type { SiteList } from '#domain/device.ts';
import { resolveSelection } from '../fleet/fleet-jobs.ts';
import { ProblemError } from '../http/problem.ts';

const range = { targetBatteryPowerW: { min: -5000, max: 5000 } };
const sites: SiteList = {
  sites: [
    {
      siteId: 'S-1',
      name: 'One',
      timeZone: 'Europe/Berlin',
      clock: { source: 'inferred' },
      devices: [
        { deviceId: 'A1', name: 'A1', model: 'M-10', capabilities: range },
        { deviceId: 'A2', name: 'A2', model: 'M-20', capabilities: range },
      ],
    },
    {
      siteId: 'S-2',
      name: 'Two',
      timeZone: 'Europe/Berlin',
      clock: { source: 'inferred' },
      devices: [
        { deviceId: 'B1', name: 'B1', model: 'M-10', capabilities: range },
        {
          deviceId: 'B2',
          name: 'B2',
          model: 'M-30',
          capabilities: { targetBatteryPowerW: { min: -1000, max: 1000 } },
        },
      ],
    },
  ],
};
const command = (targetBatteryPowerW: number) => ({
  powerControl: { targetBatteryPowerW },
  startTime: '2030-01-01T17:00:00Z',
  endTime: '2030-01-01T19:00:00Z',
});
const selection = (s: { siteIds?: string[]; models?: string[]; deviceIds?: string[] }) => ({
  siteIds: [],
  models: [],
  deviceIds: [],
  ...s,
});

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ProblemError && error.problem.code === 'fleet_selection_refused')
      return error.message;
    throw error;
  }
  throw new Error('not refused');
}

describe('resolveSelection', () => {
  it('joins sites, models and listed devices, each device once, sites in the order named', () => {
    expect(
      resolveSelection(
        sites,
        selection({ siteIds: ['S-2'], models: ['M-10'], deviceIds: ['A2', 'B1'] }),
        command(500),
      ),
    ).toEqual(['B1', 'B2', 'A1', 'A2']);
  });

  it('refuses sites and devices outside the bound sites, naming them', () => {
    const words = refusal(() =>
      resolveSelection(sites, selection({ siteIds: ['S-9'], deviceIds: ['Z1'] }), command(500)),
    );
    expect(words).toContain('S-9');
    expect(words).toContain('Z1');
  });

  it("refuses a device whose capability range refuses the command's value", () => {
    const words = refusal(() =>
      resolveSelection(sites, selection({ siteIds: ['S-2'] }), command(3000)),
    );
    expect(words).toContain('B2');
    expect(words).not.toContain('B1');
  });

  it('refuses a selection that matches no device', () => {
    expect(
      refusal(() => resolveSelection(sites, selection({ models: ['M-99'] }), command(1))),
    ).toContain('no device matches');
  });
});
