import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { invalidationsOf } from '#client/app/push-updates.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { receivedRecord } from '#client/testing/status-records.ts';
import { CancelResults } from '../cancel-results.tsx';

const GOES_AT = '2026-11-21T10:31:20Z';
const waiting = receivedRecord({
  id: 'cmd_2',
  deviceId: 'BAT-2',
  powerControl: { targetBatteryPowerW: -2000 },
  startTime: '2026-11-21T11:00:00Z',
  endTime: '2026-11-21T12:00:00Z',
  receivedAt: '2026-11-21T10:00:00Z',
});
const queuedCancel = {
  id: 'chg_r',
  kind: 'cancel',
  state: 'queued',
  deviceIds: ['BAT-2'],
  steps: [
    {
      call: 'cancel',
      deviceIds: ['BAT-2'],
      state: 'waiting',
      plannedAt: GOES_AT,
      commandId: 'cmd_2',
    },
  ],
  goesAt: GOES_AT,
  createdAt: '2026-11-21T10:30:40Z',
  updatedAt: '2026-11-21T10:30:40Z',
};

describe('CancelResults, a retry the budget queued', () => {
  it('follows the queued retry: "not sent yet" gives way to sent once the cancel went', async () => {
    let change: object = queuedCancel;
    stubFetch((request) => {
      if (request.method === 'PUT' && request.path === '/api/devices/BAT-2/commands/cmd_2/cancel')
        return json(202, {
          queued: { changeId: 'chg_r', goesAt: GOES_AT, reason: 'no_slot', deviceIds: ['BAT-2'] },
        });
      if (request.path === '/api/changes/chg_r') return json(200, change);
      return problem(404, 'not_found', `no route ${request.path}`);
    });
    const user = userEvent.setup();
    const { queryClient } = renderWithProviders(
      <CancelResults
        results={[
          { deviceId: 'BAT-1', commandId: 'cmd_1', success: true, status: 'cancelled' },
          { deviceId: 'BAT-2', commandId: 'cmd_2', success: false, status: 'received' },
        ]}
        records={[undefined, waiting]}
        onDismiss={vi.fn()}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Retry cancel of BAT-2' }));
    const item = (await screen.findByText(/not sent yet\. Queued: it goes at/)).closest('li');

    change = {
      ...queuedCancel,
      state: 'sent',
      goesAt: undefined,
      steps: [{ ...queuedCancel.steps[0], state: 'sent', sentAt: GOES_AT }],
    };
    for (const filters of invalidationsOf({
      id: '11',
      type: 'queuedChangeChanged',
      data: { changeId: 'chg_r', state: 'sent', deviceIds: ['BAT-2'] },
      createdAt: GOES_AT,
    }))
      await queryClient.invalidateQueries(filters);
    await vi.waitFor(() =>
      expect(item?.textContent).toMatch(
        /^BAT-2: Cancel of command cmd_2 sent at UTC 2026-11-21 10:31, after waiting for the device's next free call\.$/,
      ),
    );
  });
});
