import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import type { Site } from '#domain/device.ts';
import { fakeCommandBff } from '#client/testing/fake-command-bff.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { PrecheckPanel } from '../precheck-panel.tsx';

const DAY_MS = 24 * 3600_000;
const site: Site = {
  siteId: 'PLANT-EU-100',
  name: 'Plant 100',
  timeZone: 'Europe/Berlin',
  clock: { source: 'inferred', vendorOffset: '+01:00' },
  devices: [
    {
      deviceId: 'BAT-EU-100-01',
      name: 'Battery 1',
      model: 'M',
      online: true,
      capabilities: { targetBatteryPowerW: { min: -5000, max: 5000 } },
    },
  ],
};
const device = site.devices[0];
if (!device) throw new Error('no device');
const startMs = Date.parse('2026-11-21T10:00:00Z');

describe('PrecheckPanel', () => {
  it('flags an active command that overlaps a long window after its first 30 days', async () => {
    const late: StatusRecord = {
      id: 'cmd_day_35',
      deviceId: device.deviceId,
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: new Date(startMs + 35 * DAY_MS).toISOString(),
      endTime: new Date(startMs + 35 * DAY_MS + 3600_000).toISOString(),
      status: 'received',
      receivedAt: '2026-11-21T09:00:00Z',
    };
    fakeCommandBff({ sites: [site], commands: [late], nowIso: '2026-11-21T09:30:00Z' });
    renderWithProviders(
      <PrecheckPanel
        devices={[{ device, site }]}
        draft={{
          properties: ['targetBatteryPowerW'],
          window: { startMs, endMs: startMs + 45 * DAY_MS },
        }}
        onDrop={vi.fn()}
      />,
    );

    expect(await screen.findByText('1 of 1 devices flagged.')).toBeTruthy();
    expect(screen.getByText(/^Overlaps command cmd_day_35 /)).toBeTruthy();
  });

  it('does not read years of history for a window over 360 days, and says overlaps are not checked', async () => {
    const { requests } = fakeCommandBff({ sites: [site], nowIso: '2026-11-21T09:30:00Z' });
    renderWithProviders(
      <PrecheckPanel
        devices={[{ device, site }]}
        draft={{
          properties: ['targetBatteryPowerW'],
          window: { startMs, endMs: startMs + 36 * 365 * DAY_MS },
        }}
        onDrop={vi.fn()}
      />,
    );

    expect(
      await screen.findByText(
        'The window is longer than 360 days, so it is not checked for overlapping commands; 0 of 1 devices flagged otherwise.',
      ),
    ).toBeTruthy();
    expect(requests.filter((r) => r.path.endsWith('/commands'))).toEqual([]);
  });
});
