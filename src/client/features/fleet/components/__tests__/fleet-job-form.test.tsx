import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { FleetJobRequest } from '#domain/fleet-job.ts';
import { json, stubFetch } from '#client/testing/fake-fetch.ts';
import { field } from '#client/testing/form-fields.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { BATTERY_A, harbourPlant } from '#client/testing/test-devices.ts';
import { FleetJobForm } from '../fleet-job-form.tsx';

const SITE = harbourPlant([
  BATTERY_A,
  { ...BATTERY_A, deviceId: 'BAT-EU-001-B', name: 'Battery B', online: false },
  { ...BATTERY_A, deviceId: 'BAT-EU-001-C', name: 'Battery C', faulted: true },
]);

describe('FleetJobForm', () => {
  it('warns of picked devices that are offline or faulted, as the batch pre-check does', async () => {
    stubFetch(() => json(200, { jobs: [] }));
    const user = userEvent.setup();
    renderWithProviders(<FleetJobForm sites={[SITE]} onCreated={() => {}} />);
    expect(screen.queryByTestId('fleet-at-risk')).toBeNull();

    await user.click(screen.getByRole('checkbox', { name: /PLANT-EU-001/ }));
    const warning = screen.getByTestId('fleet-at-risk');
    const [offline, faulted] = within(warning).getAllByRole('paragraph');
    expect(offline?.textContent).toBe(
      '1 picked device is offline: unless they come back before the start, their commands end cancelled, “The start time passed before the device could begin (device offline?)”. BAT-EU-001-B.',
    );
    expect(faulted?.textContent).toBe(
      '1 picked device is faulted, as the vendor reports: unless the fault is cleared, their commands may end cancelled, “A device fault prevented or stopped execution”. BAT-EU-001-C.',
    );
  });

  it('asks before starting: the devices, the window with UTC and the pace; Escape sends nothing', async () => {
    const requests = stubFetch((request) =>
      request.method === 'POST' ? json(500, {}) : json(200, { jobs: [] }),
    );
    const user = userEvent.setup();
    renderWithProviders(<FleetJobForm sites={[SITE]} onCreated={() => {}} />);
    await user.click(screen.getByRole('checkbox', { name: /PLANT-EU-001/ }));
    await user.type(field('Target battery power (W)'), '1 kW');
    const start = screen.getByRole('button', { name: 'Start fleet job for 3 devices' });
    await user.click(start);
    const dialog = await screen.findByRole('alertdialog');
    const text = dialog.textContent ?? '';
    expect(text).toContain('3 devices: BAT-EU-001-A, BAT-EU-001-B, BAT-EU-001-C');
    expect(text).toMatch(/\(Europe\/Berlin\), UTC \d{4}-\d{2}-\d{2} /);
    expect(text).toContain('1 batch of up to 50 devices, 10 a minute');
    expect(text).toContain('more than 10% of the devices sent so far failed or were cancelled');
    expect(dialog.contains(document.activeElement)).toBe(true);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(0);

    await user.click(start);
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', {
        name: 'Start sending to 3 devices',
      }),
    );
    await vi.waitFor(() =>
      expect(requests.filter((request) => request.method === 'POST')).toHaveLength(1),
    );
    const sent = requests.find((request) => request.method === 'POST')?.body as FleetJobRequest;
    expect(sent.command.powerControl).toEqual({ targetBatteryPowerW: 1000 });
    expect(sent.rollout).toEqual({ batchSize: 50, batchesPerMinute: 10, abortPercent: 10 });
  });
});
