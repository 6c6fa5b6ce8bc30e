import { describe, expect, it } from 'vitest';
import type { Capabilities, SiteList } from '#domain/device.ts';
import { resolveSelection } from '../fleet/fleet-jobs.ts';
import { ProblemError } from '../http/problem.ts';

const range: Capabilities = { targetBatteryPowerW: { min: -5000, max: 5000 } };
type Site = SiteList['sites'][number];
/** A device named by its ID, of `model`, with `capabilities` (5 kW each way unless given). */
const device = (deviceId: string, model: string, capabilities: Capabilities = range) => ({
  deviceId,
  name: deviceId,
  model,
  capabilities,
});
/** A site in Berlin, its clock inferred. */
const berlinSite = (siteId: string, name: string, devices: Site['devices']): Site => ({
  siteId,
  name,
  timeZone: 'Europe/Berlin',
  clock: { source: 'inferred' },
  devices,
});
const sites: SiteList = {
  sites: [
    berlinSite('S-1', 'One', [device('A1', 'M-10'), device('A2', 'M-20')]),
    berlinSite('S-2', 'Two', [
      device('B1', 'M-10'),
      device('B2', 'M-30', { targetBatteryPowerW: { min: -1000, max: 1000 } }),
    ]),
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
