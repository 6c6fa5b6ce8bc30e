import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json, stubFetch } from '../../../../testing/fake-fetch.ts';
import { renderWithProviders } from '../../../../testing/render.tsx';
import { BATTERY_A, harbourPlant } from '../../../../testing/test-devices.ts';
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
});
