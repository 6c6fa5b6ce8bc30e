import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { batchCommandOf, batchStatusOf, threeDeviceBatch } from '#client/testing/batch-records.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import type { BatchRecord } from '../../lib/ledger-batches.ts';
import { BatchPage } from '../batch-page.tsx';

const command = batchCommandOf({ targetBatteryPowerW: -2000 });
const status = batchStatusOf(command, 'received');

/** A batch of three devices: BAT-1's command found, BAT-2's not confirmed yet, BAT-3's not found. */
const confirming: BatchRecord = {
  ...threeDeviceBatch(command),
  commands: [{ deviceId: 'BAT-1', id: 'cmd_1' }],
  unconfirmed: [
    { deviceId: 'BAT-2', state: 'confirming' },
    { deviceId: 'BAT-3', state: 'notFound' },
  ],
  confirmation: 'confirming',
};

/** A fake BFF that answers the status of `records` and cancels them one by one. */
function fakeBff(records: StatusRecord[]) {
  return stubFetch((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/ledger') return json(200, { entries: [] });
    const found = records.find((r) => request.path.includes(`/commands/${r.id}`));
    if (found && request.method === 'PUT') {
      if (found.status !== 'received')
        return problem(409, 'not_cancellable', 'The command has completed.');
      Object.assign(found, {
        status: 'cancelled',
        cancelledAt: '2026-11-21T10:30:00Z',
        cancelReason: 'manuallyCancel',
      });
      // The cancelled record, which reads as the cancel's answer too (its `commandId` added).
      return json(200, { ...found, commandId: found.id });
    }
    if (found) return json(200, found);
    return problem(404, 'not_found', `no route ${route}`);
  });
}

const row = (deviceId: string) => screen.getByRole('row', { name: new RegExp(deviceId) });

describe('BatchPage, while its devices are being confirmed', () => {
  it('shows each device as found, not confirmed yet or not found, and counts them all', async () => {
    fakeBff([status('BAT-1', 'cmd_1')]);
    renderWithProviders(
      <BatchPage
        record={confirming}
        historyPathOf={(deviceId) => `/sites/PLANT-1/devices/${deviceId}/history`}
      />,
    );
    await waitFor(() => expect(row('BAT-1').textContent).toContain('Received (pending)'));
    expect(row('BAT-1').textContent).toContain('cmd_1');
    expect(row('BAT-2').textContent).toContain('Not confirmed yet');
    expect(row('BAT-3').textContent).toContain("Not found in the device's history");
    expect(row('BAT-3').textContent).toContain(
      "The window has ended and the device's history holds no command of this batch",
    );
    expect(within(row('BAT-3')).getByRole('link', { name: 'History of BAT-3' })).toHaveProperty(
      'href',
      expect.stringContaining('/sites/PLANT-1/devices/BAT-3/history'),
    );

    const progress = screen.getByRole('region', { name: 'Progress' });
    expect(within(progress).getByRole('status').textContent).toBe(
      'In progress: 0 of 3 device commands are final; 1 device not confirmed yet. 1 device had no command in its history: check it before sending again.',
    );
    expect(screen.getByTestId('count-confirming').textContent).toBe('Not confirmed yet1');
    expect(screen.getByTestId('count-notFound').textContent).toBe('Not found in history1');
    expect(within(progress).getByRole('progressbar').getAttribute('aria-valuetext')).toBe(
      '0 of 3 final',
    );
    expect(progress.textContent).toContain('this page reads the batch again every 5 seconds');
  });

  it('says a batch with a batch ID cancels the unconfirmed devices too', async () => {
    const user = userEvent.setup();
    fakeBff([status('BAT-1', 'cmd_1')]);
    renderWithProviders(<BatchPage record={confirming} />);
    await waitFor(() => expect(row('BAT-1').textContent).toContain('Received (pending)'));
    await user.click(screen.getByRole('button', { name: 'Cancel batch' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Cancel batch batch_1?' });
    expect(confirm.textContent).toContain(
      '2 of the 3 device commands are still received or executing (or not read or confirmed yet) and are cancelled',
    );
  });
});

describe('BatchPage of a batch without a batch ID', () => {
  const lost: BatchRecord = {
    ...confirming,
    batchCommandId: undefined,
    deviceIds: ['BAT-1', 'BAT-2', 'BAT-3'],
    commands: [
      { deviceId: 'BAT-1', id: 'cmd_1' },
      { deviceId: 'BAT-2', id: 'cmd_2' },
      { deviceId: 'BAT-3', id: 'cmd_3' },
    ],
    unconfirmed: [],
    confirmation: 'confirmed',
  };

  it('says why it has no ID and cancels its devices one by one, each with its outcome', async () => {
    const user = userEvent.setup();
    const requests = fakeBff([
      status('BAT-1', 'cmd_1'),
      status('BAT-2', 'cmd_2'),
      status('BAT-3', 'cmd_3', { status: 'completed', completedAt: '2026-11-21T10:20:00Z' }),
    ]);
    renderWithProviders(<BatchPage record={lost} />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(
      'Batch sent 2026-11-21 11:00 (Europe/Berlin), UTC 2026-11-21 10:00',
    );
    expect(screen.getByText(/its batch ID is not known/).textContent).toContain(
      'it is cancelled device by device',
    );
    await waitFor(() => expect(row('BAT-3').textContent).toContain('Completed'));

    await user.click(screen.getByRole('button', { name: 'Cancel batch' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Cancel this batch?' });
    expect(confirm.textContent).toContain(
      '2 device commands are still received or executing (or not read yet) and are cancelled one by one',
    );
    await user.click(within(confirm).getByRole('button', { name: 'Cancel batch' }));

    const results = await screen.findByRole('region', { name: 'Batch cancel results' });
    expect(within(results).getByRole('status').textContent).toBe(
      'All 2 device commands were cancelled.',
    );
    const cancels = requests.filter((r) => r.method === 'PUT').map((r) => r.path);
    expect(cancels).toEqual([
      '/api/devices/BAT-1/commands/cmd_1/cancel',
      '/api/devices/BAT-2/commands/cmd_2/cancel',
    ]);
    // No batch cancel exists for it in the ledger to look up.
    expect(
      requests.filter((r) => r.path === '/api/ledger' && r.search.get('kind') === 'batchCancel'),
    ).toEqual([]);
  });
});
