import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import type { Site } from '#domain/device.ts';
import type { StatusRecord } from '#domain/command.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { harbourPlant } from '#client/testing/test-devices.ts';
import { SiteList } from '../site-list.tsx';

const startMs = Date.now() + 3_600_000;
const waiting: StatusRecord = {
  id: 'cmd_waiting',
  deviceId: 'BAT-EU-001-A',
  status: 'received',
  powerControl: { targetBatteryPowerW: -2000 },
  startTime: new Date(startMs).toISOString(),
  endTime: new Date(startMs + 3_600_000).toISOString(),
  receivedAt: new Date().toISOString(),
};

function fakeBff(cancelQueued = false) {
  return stubFetch((request) => {
    if (cancelQueued && request.method === 'PUT')
      return json(202, {
        queued: {
          changeId: 'chg_1',
          goesAt: new Date(Date.now() + 40_000).toISOString(),
          reason: 'no_slot',
          deviceIds: ['BAT-EU-001-A'],
        },
      });
    if (request.method === 'GET' && request.path === '/api/devices/BAT-EU-001-A/commands')
      return json(200, { commands: [waiting], version: 3 });
    if (request.method === 'PUT' && request.path.endsWith('/cmd_waiting/cancel'))
      return json(200, {
        deviceId: 'BAT-EU-001-A',
        commandId: 'cmd_waiting',
        status: 'cancelled',
        cancelledAt: new Date().toISOString(),
        cancelReason: 'manuallyCancel',
      });
    if (request.method === 'DELETE' && request.path === '/api/sites/PLANT-EU-001')
      return new Response(null, { status: 204 });
    return problem(404, 'not_found', `no route ${request.method} ${request.path}`);
  });
}

describe('unbinding a site with waiting commands', () => {
  it('lists them, and cancels them before it unbinds when asked', async () => {
    const requests = fakeBff();
    renderWithProviders(<SiteList sites={[harbourPlant()]} renderDevices={() => null} />);
    await userEvent.click(screen.getByRole('button', { name: 'Unbind' }));

    const dialog = await screen.findByRole('alertdialog');
    await waitFor(() =>
      expect(within(dialog).getByRole('list', { name: 'Waiting and executing commands' })),
    );
    expect(within(dialog).getByRole('listitem').textContent).toContain('BAT-EU-001-A');
    expect(within(dialog).getByRole('listitem').textContent).toContain('Received (pending)');
    expect(
      within(dialog).getByRole('button', { name: 'Leave them running and unbind' }),
    ).toBeTruthy();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel them, then unbind' }));
    await waitFor(() =>
      expect(
        requests.some((r) => r.method === 'DELETE' && r.path === '/api/sites/PLANT-EU-001'),
      ).toBe(true),
    );
    const cancelAt = requests.findIndex((r) => r.method === 'PUT');
    const unbindAt = requests.findIndex((r) => r.method === 'DELETE');
    expect(cancelAt).toBeGreaterThanOrEqual(0);
    expect(cancelAt).toBeLessThan(unbindAt);
  });

  it("keeps the site bound while a cancel waits for its device's next call, and says so", async () => {
    const requests = fakeBff(true);
    renderWithProviders(<SiteList sites={[harbourPlant()]} renderDevices={() => null} />);
    await userEvent.click(screen.getByRole('button', { name: 'Unbind' }));
    const dialog = await screen.findByRole('alertdialog');
    await userEvent.click(
      await within(dialog).findByRole('button', { name: 'Cancel them, then unbind' }),
    );

    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain(
      'The site is still bound: 1 of 1 commands are not cancelled yet.',
    );
    expect(alert.textContent).toContain('Not sent yet.');
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);
  });
});

describe('after an unbind', () => {
  it('puts focus on what happened once the site is gone, even if something took it meanwhile', async () => {
    fakeBff();
    let setSites: (sites: Site[]) => void = () => undefined;
    function Harness() {
      const [sites, set] = useState<Site[]>([harbourPlant()]);
      setSites = set;
      return <SiteList sites={sites} renderDevices={() => null} />;
    }
    renderWithProviders(<Harness />);
    await userEvent.click(screen.getByRole('button', { name: 'Unbind' }));
    const dialog = await screen.findByRole('alertdialog');
    await userEvent.click(
      await within(dialog).findByRole('button', { name: 'Leave them running and unbind' }),
    );
    const outcome = await screen.findByRole('status', { name: '' });
    await waitFor(() => expect(outcome.textContent).toContain('Unbound PLANT-EU-001'));
    // The closed dialog gives focus back to the button that opened it, after the answer came.
    screen.getByRole('button', { name: 'Unbind' }).focus();
    // The sites read again without it: its button goes, and focus must not fall to the page.
    act(() => setSites([]));
    await waitFor(() => expect(document.activeElement).toBe(outcome));
  });
});
