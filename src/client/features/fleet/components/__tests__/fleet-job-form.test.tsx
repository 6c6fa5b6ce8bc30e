import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { FleetJobRequest } from '#domain/fleet-job.ts';
import { json, stubFetch } from '#client/testing/fake-fetch.ts';
import { field } from '#client/testing/form-fields.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { BATTERY_A, harbourPlant } from '#client/testing/test-devices.ts';
import { FleetJobForm } from '../fleet-job-form.tsx';

/** The deliverable check's answer for a selection nobody flagged, nothing read. */
const NOTHING_FLAGGED = {
  takenAt: '2026-11-21T10:00:00.000Z',
  devices: 3,
  snapshot: { calls: 0, read: 0, deferred: 0 },
  notFollowing: [],
  unknown: [],
};

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
      request.path === '/api/deliverable'
        ? json(200, NOTHING_FLAGGED)
        : request.method === 'POST'
          ? json(500, {})
          : json(200, { jobs: [] }),
    );
    // The deliverable check asks before sending too: only the job's own POST sends anything.
    const jobPosts = () =>
      requests.filter((request) => request.method === 'POST' && request.path === '/api/fleet-jobs');
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
    expect(jobPosts()).toHaveLength(0);

    await user.click(start);
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', {
        name: 'Start sending to 3 devices',
      }),
    );
    await vi.waitFor(() => expect(jobPosts()).toHaveLength(1));
    const sent = jobPosts()[0]?.body as FleetJobRequest;
    expect(sent.command.powerControl).toEqual({ targetBatteryPowerW: 1000 });
    expect(sent.rollout).toEqual({ batchSize: 50, batchesPerMinute: 10, abortPercent: 10 });
  });

  it('leaves out the picked devices that did not follow: the job then names the others', async () => {
    const requests = stubFetch((request) => {
      if (request.path === '/api/deliverable')
        return json(200, {
          ...NOTHING_FLAGGED,
          notFollowing: (request.body as { deviceIds: string[] }).deviceIds.includes('BAT-EU-001-B')
            ? [{ deviceId: 'BAT-EU-001-B', notFollowing: 2, of: 3 }]
            : [],
        });
      return request.method === 'POST' ? json(500, {}) : json(200, { jobs: [] });
    });
    const user = userEvent.setup();
    renderWithProviders(<FleetJobForm sites={[SITE]} onCreated={() => {}} />);
    await user.click(screen.getByRole('checkbox', { name: /PLANT-EU-001/ }));
    await user.click(
      await screen.findByRole('button', { name: 'Leave out 1 device that did not follow' }),
    );
    expect(screen.getByText(/^2 devices in 1 batch/)).toBeTruthy();
    await user.type(field('Target battery power (W)'), '1 kW');
    await user.click(screen.getByRole('button', { name: 'Start fleet job for 2 devices' }));
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', {
        name: 'Start sending to 2 devices',
      }),
    );
    await vi.waitFor(() =>
      expect(requests.filter((request) => request.path === '/api/fleet-jobs')).toHaveLength(1),
    );
    const sent = requests.find((request) => request.path === '/api/fleet-jobs')
      ?.body as FleetJobRequest;
    expect(sent.selection).toEqual({
      siteIds: [],
      models: [],
      deviceIds: ['BAT-EU-001-A', 'BAT-EU-001-C'],
    });
  });
});
