import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { progressOf, type FleetJob } from '#domain/fleet-job.ts';
import { json, stubFetch } from '#client/testing/fake-fetch.ts';
import { sentFleetBatch, TEST_FLEET_JOB_ID, testFleetJob } from '#client/testing/fleet-jobs.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { fleetJobRefetchMs } from '../../lib/fleet-confirmation.ts';
import { FleetJobView } from '../fleet-job-view.tsx';

const JOB_ID = TEST_FLEET_JOB_ID;

/** Two batches of two: the first sent (one received, one cancelled for an overlap), one pending. */
function job(overrides: Partial<FleetJob> = {}): FleetJob {
  return testFleetJob({
    rollout: { batchSize: 2, batchesPerMinute: 10, abortPercent: 10 },
    progress: {
      total: 4,
      sent: 2,
      received: 1,
      executing: 0,
      completed: 0,
      cancelled: { timeWindowOverlap: 1 },
      unbound: 0,
      failed: 0,
    },
    batches: [
      sentFleetBatch([
        { deviceId: 'BAT-1', commandId: 'CMD-1', status: 'received' },
        {
          deviceId: 'BAT-2',
          commandId: 'CMD-2',
          status: 'cancelled',
          cancelReason: 'timeWindowOverlap',
        },
      ]),
      {
        index: 1,
        state: 'pending',
        attempts: 0,
        devices: [{ deviceId: 'BAT-3' }, { deviceId: 'BAT-4' }],
      },
    ],
    ...overrides,
  });
}

/** What the job's Batches region says of each device, line by line. */
const deviceLines = () =>
  within(screen.getByRole('region', { name: 'Batches' }))
    .getAllByRole('listitem')
    .map((li) => li.textContent);

describe('FleetJobView', () => {
  it('shows progress by status and reason, times on the site clock with UTC, and each batch', () => {
    renderWithProviders(<FleetJobView job={job()} timeZone="Europe/Berlin" />);
    expect(screen.getByRole('status')?.textContent).toContain(
      'Sending. 1 of 2 batches sent or tried.',
    );
    const progress = screen.getByRole('region', { name: 'Progress' });
    expect(
      within(progress).getByText('Sent', { selector: 'dt' }).nextSibling?.textContent,
    ).toContain('2');
    expect(progress?.textContent).toContain(
      '1 cancelled: Its window overlapped another command of the same device',
    );
    // Started 12:00 UTC is 13:00 in Berlin; both are shown.
    const started = screen.getByText('Started').nextElementSibling?.textContent ?? '';
    expect(started).toContain('13:00');
    expect(started).toContain('(Europe/Berlin)');
    expect(started).toContain('12:00');
    const rows = within(screen.getByRole('region', { name: 'Batches' })).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]?.textContent).toContain('BATCH-1');
    expect(rows[2]?.textContent).toContain('Waiting');
  });

  it('says when the last batch goes at the earliest, on the site clock with UTC', () => {
    renderWithProviders(
      <FleetJobView
        job={job({ sendingEndsAt: '2030-01-01T12:00:07.000Z' })}
        timeZone="Europe/Berlin"
      />,
    );
    const state = screen.getByRole('status').textContent ?? '';
    expect(state).toMatch(/At the earliest, the last batch goes at .*13:00 \(Europe\/Berlin\)/);
    expect(state).toContain('UTC 2030-01-01 12:00');
  });

  it('charts devices over time with a summary and a table of the same counts', async () => {
    const user = userEvent.setup();
    const sent = job().batches[0];
    renderWithProviders(
      <FleetJobView
        job={job({
          batches: [
            {
              ...(sent as NonNullable<typeof sent>),
              devices: [
                { deviceId: 'BAT-1', commandId: 'CMD-1', status: 'received' },
                {
                  deviceId: 'BAT-2',
                  commandId: 'CMD-2',
                  status: 'cancelled',
                  cancelReason: 'timeWindowOverlap',
                  outcomeAt: '2030-01-01T12:03:00.000Z',
                },
              ],
            },
          ],
        })}
        timeZone="Europe/Berlin"
      />,
    );
    const chart = screen.getByRole('figure', { name: 'Devices over time' });
    expect(chart.textContent).toContain(
      'Sent 2, completed 0, cancelled 1, failed 0 devices by 2030-01-01 13:03 (Europe/Berlin); the first batch went out at 2030-01-01 13:00.',
    );
    await user.click(within(chart).getByText('Devices over time as a table'));
    const rows = within(chart).getAllByRole('row');
    expect(rows.map((row) => row.textContent)).toEqual([
      'Time (Europe/Berlin)UTCSentCompletedCancelledFailed',
      '2030-01-01 13:00UTC 2030-01-01 12:000000',
      '2030-01-01 13:00UTC 2030-01-01 12:002000',
      '2030-01-01 13:03UTC 2030-01-01 12:032010',
    ]);
  });

  it('says why an aborted job stopped and offers no pause or cancel', () => {
    renderWithProviders(
      <FleetJobView
        job={job({
          state: 'aborted',
          stopReason: 'Stopped: 1 of the 2 devices tried so far failed.',
        })}
        timeZone="UTC"
      />,
    );
    expect(screen.getByRole('status')?.textContent).toContain('Stopped by its abort rule');
    expect(screen.getByRole('status')?.textContent).toContain(
      '1 of the 2 devices tried so far failed',
    );
    expect(screen.queryByRole('button', { name: 'Pause' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Cancel job/ })).toBeNull();
  });

  it('says UTC once for a job whose devices are on several clocks', () => {
    renderWithProviders(<FleetJobView job={job()} timeZone="UTC" />);
    expect(screen.getByText('Started').nextElementSibling?.textContent).toMatch(
      /^UTC 2030-01-01 12:00/,
    );
    expect(screen.getByText('Effective window').nextElementSibling?.textContent).toMatch(
      /^UTC [\d-]+ [\d:]+–[\d:]+$/,
    );
    const sent = within(screen.getByRole('region', { name: 'Batches' })).getAllByRole('row')[1];
    expect(sent?.textContent?.match(/UTC/g) ?? []).toHaveLength(1);
  });

  it('cancels only after confirmation', async () => {
    const requests = stubFetch((request) =>
      request.method === 'POST'
        ? json(200, job({ state: 'cancelling' }))
        : json(200, job({ state: 'cancelling' })),
    );
    const user = userEvent.setup();
    renderWithProviders(<FleetJobView job={job()} timeZone="UTC" />);
    await user.click(screen.getByRole('button', { name: 'Cancel job…' }));
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Cancel job and its commands' }));
    await waitFor(() =>
      expect(requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual([
        `/api/fleet-jobs/${JOB_ID}/cancel`,
      ]),
    );
    expect(requests.find((r) => r.method === 'POST')?.headers.get('X-CSRF')).toBe('1');
  });

  it('says which sent devices are not confirmed yet and which were not found, and counts them', () => {
    const unconfirmed = job({
      batches: [
        sentFleetBatch([
          { deviceId: 'BAT-1', commandId: 'CMD-1', status: 'received' },
          { deviceId: 'BAT-2' },
        ]),
        {
          index: 1,
          state: 'pending',
          attempts: 0,
          devices: [{ deviceId: 'BAT-3' }],
        },
      ],
    });
    const { unmount } = renderWithProviders(
      <FleetJobView
        job={unconfirmed}
        timeZone="UTC"
        readAtMs={Date.parse('2030-01-01T12:00:10Z')}
        clockNotice={<p>Clock notice of the job's sites</p>}
      />,
    );
    expect(screen.getByText("Clock notice of the job's sites")).toBeTruthy();
    const progress = screen.getByRole('region', { name: 'Progress' });
    expect(
      within(progress).getByText('Not confirmed yet', { selector: 'dt' }).nextSibling?.textContent,
    ).toBe('1');
    expect(deviceLines()).toEqual([
      'BAT-1: Received (pending)',
      "BAT-2: Sent, not confirmed yet: its command is looked for in the device's history",
      'BAT-3: Not sent',
    ]);
    unmount();

    // Read after the window ended (19:00 UTC), BAT-2's command was never found.
    renderWithProviders(
      <FleetJobView
        job={unconfirmed}
        timeZone="UTC"
        readAtMs={Date.parse('2030-01-01T19:30:00Z')}
      />,
    );
    expect(
      within(screen.getByRole('region', { name: 'Progress' })).getByText('Not found in history', {
        selector: 'dt',
      }).nextSibling?.textContent,
    ).toBe('1');
    const again = within(screen.getByRole('region', { name: 'Batches' })).getAllByRole('listitem');
    expect(again[1]?.textContent).toBe(
      "BAT-2: Not found in the device's history: the window has ended without its command. Check the device's history before sending again",
    );
  });

  it('cancels chosen devices one by one after naming them, and resends to the chosen failed ones', async () => {
    const user = userEvent.setup();
    const requests = stubFetch(() =>
      json(200, {
        deviceId: 'BAT-1',
        commandId: 'CMD-1',
        status: 'cancelled',
        cancelledAt: '2030-01-01T12:05:00Z',
        cancelReason: 'manuallyCancel',
      }),
    );
    const resent: unknown[] = [];
    renderWithProviders(
      <FleetJobView
        job={job()}
        timeZone="Europe/Berlin"
        readAtMs={Date.parse('2030-01-01T12:01:00Z')}
        onResend={(deviceIds) => resent.push(deviceIds)}
      />,
    );
    expect(screen.getByText(/devices selected$/).textContent).toBe('0 of 4 devices selected');
    await user.click(screen.getByRole('button', { name: 'Select all (4)' }));
    expect(screen.getByText(/devices selected$/).textContent).toBe('4 of 4 devices selected');
    await user.click(screen.getByRole('button', { name: 'Cancel selected (1)…' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Cancel 1 device command?' });
    expect(dialog.textContent).toContain('Cancelled, each device on its own: BAT-1.');
    expect(dialog.textContent).toContain('BAT-2 (its command is already cancelled)');
    expect(dialog.textContent).toContain('a cancel cannot be undone');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel 1 device command' }));
    expect(await screen.findByText('All 1 selected device commands were cancelled.')).toBeTruthy();
    expect(
      screen.getByRole('checkbox', { name: 'Select BAT-1' }).closest('li')?.textContent,
    ).toContain('Last cancel: cancelled.');
    expect(requests.filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual([
      '/api/devices/BAT-1/commands/CMD-1/cancel',
    ]);

    await user.click(screen.getByRole('button', { name: 'Resend to selected failed (1)…' }));
    expect(resent).toEqual([['BAT-2']]);
  });
});

describe('FleetJobView, with devices on a site since unbound', () => {
  it('ends them as no longer followed, counted apart and final: not failed, not looked for, not read again', () => {
    const batches: FleetJob['batches'] = [
      sentFleetBatch([
        {
          deviceId: 'BAT-1',
          commandId: 'CMD-1',
          status: 'received',
          unbound: true,
          outcomeAt: '2030-01-01T12:05:00.000Z',
        },
        { deviceId: 'BAT-2', unbound: true, outcomeAt: '2030-01-01T12:05:00.000Z' },
        {
          deviceId: 'BAT-3',
          commandId: 'CMD-3',
          status: 'completed',
          outcomeAt: '2030-01-01T19:00:00.000Z',
        },
      ]),
    ];
    const unbound = job({ state: 'completed', batches, progress: progressOf(batches) });
    const readAtMs = Date.parse('2030-01-01T19:30:00Z');
    renderWithProviders(<FleetJobView job={unbound} timeZone="UTC" readAtMs={readAtMs} />);

    const progress = screen.getByRole('region', { name: 'Progress' });
    const count = (label: string) =>
      within(progress).queryByText(label, { selector: 'dt' })?.nextSibling?.textContent;
    expect(count('No longer followed (site unbound)')).toBe('2');
    expect(count('Received')).toBe('0');
    expect(count('Failed')).toBe('0');
    expect(count('Not found in history')).toBeUndefined();
    expect(deviceLines()).toEqual([
      'BAT-1: Site unbound: no longer followed. Its command may still run on the vendor until the site is bound again. Last read: Received (pending)',
      'BAT-2: Site unbound: no longer followed. Its command may still run on the vendor until the site is bound again',
      'BAT-3: Completed',
    ]);
    // Every device is final: the page reads the job no more.
    expect(fleetJobRefetchMs(unbound, readAtMs, 2000)).toBe(false);
  });
});
