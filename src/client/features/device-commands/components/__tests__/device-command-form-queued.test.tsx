import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import { invalidationsOf } from '#client/app/push-updates.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { field } from '#client/testing/form-fields.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { BATTERY_A } from '#client/testing/test-devices.ts';
import { DeviceCommandForm } from '../device-command-form.tsx';

const DEVICE = BATTERY_A.deviceId;
const GOES_AT = '2026-11-21T13:03:20Z';
const OVERLAP =
  'The window overlaps another command of BAT-EU-001-A, which is waiting or running. Cancel that command first, or choose a window that does not overlap it (windows may touch).';

/** The queued submission as `GET /api/changes/chg_1` answers it, at `state`. */
function change(state: QueuedChangeStatus['state'], more: Partial<QueuedChangeStatus> = {}) {
  return {
    id: 'chg_1',
    kind: 'submit',
    state,
    deviceIds: [DEVICE],
    steps: [
      {
        call: 'submit',
        deviceIds: [DEVICE],
        state: state === 'sent' ? 'sent' : state === 'failed' ? 'failed' : 'waiting',
        plannedAt: GOES_AT,
      },
    ],
    ...(state === 'queued' ? { goesAt: GOES_AT } : {}),
    createdAt: '2026-11-21T13:02:40Z',
    updatedAt: '2026-11-21T13:03:21Z',
    ...more,
  } satisfies QueuedChangeStatus;
}

/** A BFF whose device has spent its calls: the submission is queued, its change read as `now`. */
function queuingBff(initial: QueuedChangeStatus) {
  const state = { change: initial };
  const requests = stubFetch((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === `POST /api/devices/${DEVICE}/commands`)
      return json(202, {
        queued: { changeId: 'chg_1', goesAt: GOES_AT, reason: 'no_slot', deviceIds: [DEVICE] },
      });
    if (route === 'GET /api/changes/chg_1') return json(200, state.change);
    return problem(404, 'not_found', `no route ${route}`);
  });
  return { state, requests };
}

async function submitQueued() {
  const user = userEvent.setup();
  const rendered = renderWithProviders(
    <DeviceCommandForm device={BATTERY_A} timeZone="Europe/Berlin" />,
  );
  await user.type(field('Target battery power (W)'), '-2000');
  await user.click(screen.getByRole('button', { name: 'Submit command' }));
  await vi.waitFor(() =>
    expect(
      screen.getByText(/^Command not sent yet\. Queued: it goes at 2026-11-21 14:03/),
    ).toBeTruthy(),
  );
  return rendered;
}

/** The BFF pushes `queuedChangeChanged`, as the event stream hands it to the query cache. */
async function pushed(
  queryClient: ReturnType<typeof renderWithProviders>['queryClient'],
  state: QueuedChangeStatus['state'],
) {
  for (const filters of invalidationsOf({
    id: '7',
    type: 'queuedChangeChanged',
    data: { changeId: 'chg_1', state, deviceIds: [DEVICE] },
    createdAt: '2026-11-21T13:03:21Z',
  }))
    await queryClient.invalidateQueries(filters);
}

describe('the device form follows the change it queued', () => {
  it('says refused by the vendor, with its reason in words, once the change was refused when it went', async () => {
    const bff = queuingBff(change('queued'));
    const { queryClient } = await submitQueued();
    bff.state.change = change('failed', {
      outcome: { failure: 'refused', detail: OVERLAP },
    });
    await pushed(queryClient, 'failed');
    await vi.waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe(
        `Command refused by the vendor when it went. ${OVERLAP}`,
      ),
    );
  });

  it('says sent, with the command it made, once the change went', async () => {
    const bff = queuingBff(change('queued'));
    const { queryClient } = await submitQueued();
    bff.state.change = change('sent', {
      steps: [
        {
          call: 'submit',
          deviceIds: [DEVICE],
          state: 'sent',
          plannedAt: GOES_AT,
          sentAt: GOES_AT,
          answer: { status: 202, body: { id: 'cmd_42' } },
        },
      ],
    });
    await pushed(queryClient, 'sent');
    await vi.waitFor(() =>
      expect(screen.getByRole('status').textContent).toMatch(
        /^Command sent as command cmd_42 at 2026-11-21 14:03 \(Europe\/Berlin\), UTC 2026-11-21 13:03, after waiting/,
      ),
    );
    expect(screen.queryByText(/not sent yet/)).toBeNull();
  });

  it('says withdrawn, and by whom, once someone withdrew the change', async () => {
    const bff = queuingBff(change('queued'));
    const { queryClient } = await submitQueued();
    bff.state.change = change('withdrawn', {
      outcome: { detail: 'Withdrawn by Bea before it was sent; nothing was sent.' },
    });
    await pushed(queryClient, 'withdrawn');
    await vi.waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe(
        'Command not sent. Withdrawn by Bea before it was sent; nothing was sent.',
      ),
    );
  });
});
