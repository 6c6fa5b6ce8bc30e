import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Site } from '#domain/device.ts';
import { json, problem, stubFetch, type RecordedRequest } from '#client/testing/fake-fetch.ts';
import { field } from '#client/testing/form-fields.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { BatchComposer } from '../batch-composer.tsx';
import { invalidationsOf } from '#client/app/push-updates.ts';

const range = { min: -5000, max: 5000 };
const GOES_AT = '2026-11-21T13:03:20Z';
const site: Site = {
  siteId: 'PLANT-EU-100',
  name: 'Plant 100',
  timeZone: 'Europe/Berlin',
  clock: { source: 'inferred', vendorOffset: '+01:00' },
  devices: Array.from({ length: 52 }, (_, i) => ({
    deviceId: `BAT-EU-100-${String(i + 1).padStart(2, '0')}`,
    name: `Battery ${i + 1}`,
    model: 'M',
    capabilities: { targetBatteryPowerW: range },
    online: true,
  })),
};

/**
 * A fake BFF that answers the deliverable check (which asks as the form changes) for a selection
 * nobody flagged, nothing read, and `handler` for everything else.
 */
const withNothingFlagged =
  (handler: (request: RecordedRequest) => Response | Promise<Response>) =>
  (request: RecordedRequest) =>
    request.path === '/api/deliverable'
      ? json(200, {
          takenAt: '2026-11-21T10:00:00.000Z',
          devices: (request.body as { deviceIds: string[] }).deviceIds.length,
          snapshot: { calls: 0, read: 0, deferred: 0 },
          notFollowing: [],
          unknown: [],
        })
      : handler(request);

describe('BatchComposer', () => {
  it('caps the batch at 50, refuses the 51st with a message and keeps submit off at 0', async () => {
    stubFetch(withNothingFlagged(() => json(200, { commands: [] })));
    const user = userEvent.setup();
    renderWithProviders(<BatchComposer sites={[site]} onSubmitted={vi.fn()} />);

    expect(
      (screen.getByRole('button', { name: 'Submit batch to 0 devices' }) as HTMLButtonElement)
        .disabled,
    ).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Select all visible (52)' }));
    expect(screen.getByText('50 of 50')).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('at most 50 devices');
    // 52 are still visible; the button says it would add the 2 not in the batch, not "visible (2)".
    expect(
      screen.getByRole('button', { name: 'Select the 2 of 52 visible not in the batch yet' }),
    ).toBeTruthy();
    expect(
      (screen.getByRole('button', { name: 'Submit batch to 50 devices' }) as HTMLButtonElement)
        .disabled,
    ).toBe(false);

    await user.click(screen.getByRole('checkbox', { name: 'Include BAT-EU-100-51' }));
    expect(
      (screen.getByRole('checkbox', { name: 'Include BAT-EU-100-51' }) as HTMLInputElement).checked,
    ).toBe(false);
    expect(screen.getByRole('alert').textContent).toContain('BAT-EU-100-51 not added');

    await user.click(screen.getByRole('button', { name: 'Remove BAT-EU-100-01' }));
    expect(screen.getByText('49 of 50')).toBeTruthy();
    await user.type(
      screen.getByLabelText('Paste device IDs'),
      'BAT-EU-100-02 BAT-EU-100-52 NOPE-1',
    );
    await user.click(screen.getByRole('button', { name: 'Add pasted IDs' }));
    const alert = within(screen.getByRole('alert'));
    expect(alert.getByText(/NOPE-1 not added: not a device of a bound site/)).toBeTruthy();
    expect(alert.getByText('BAT-EU-100-02 already in the batch.')).toBeTruthy();
    expect(screen.getByText('50 of 50')).toBeTruthy();
  });

  it('hands the accepted batch on to open its page, and cannot send the same batch twice', async () => {
    // Once sent, the device's history holds the batch's own command over the whole window.
    let sent = false;
    const ownCommand = {
      id: 'cmd_1',
      deviceId: 'BAT-EU-100-01',
      batchCommandId: 'batch_1',
      powerControl: { targetBatteryPowerW: -2000 },
      startTime: new Date(Date.now() - 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      endTime: new Date(Date.now() + 7 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      status: 'received',
      receivedAt: '2026-11-21T10:00:00Z',
    };
    const requests = stubFetch(
      withNothingFlagged((request) => {
        if (request.method !== 'POST') return json(200, { commands: sent ? [ownCommand] : [] });
        sent = true;
        return json(202, {
          batchCommandId: 'batch_1',
          timestamp: '2026-11-21T10:00:00Z',
          confirmation: 'confirmed',
          commands: [{ deviceId: 'BAT-EU-100-01', id: 'cmd_1' }],
          unconfirmed: [],
        });
      }),
    );
    const onSubmitted = vi.fn();
    const user = userEvent.setup();
    renderWithProviders(<BatchComposer sites={[site]} onSubmitted={onSubmitted} />);

    await user.click(screen.getByRole('checkbox', { name: 'Include BAT-EU-100-01' }));
    await user.type(field('Target battery power (W)'), '-2000');
    const submit = screen.getByRole('button', { name: 'Submit batch to 1 device' });
    await user.click(submit);

    await vi.waitFor(() => expect(onSubmitted).toHaveBeenCalledWith('batch_1'));
    expect((submit as HTMLButtonElement).disabled).toBe(true);
    await user.click(submit);
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    // The pre-check, read again after the batch, does not flag the batch's own command.
    await vi.waitFor(() =>
      expect(
        requests.filter((r) => r.method === 'GET' && r.path.endsWith('/commands')).length,
      ).toBeGreaterThan(1),
    );
    const precheck = screen.getByRole('region', { name: 'Pre-check' });
    await vi.waitFor(() => expect(precheck.textContent).toContain('All 1 devices checked'));
    expect(precheck.textContent).not.toMatch(/flagged/);
  });

  it('follows a queued batch: its "not sent yet" line says refused, with the reason, once the vendor refused it', async () => {
    const device = 'BAT-EU-100-01';
    const queuedChange = {
      id: 'chg_b',
      kind: 'batch',
      state: 'queued',
      deviceIds: [device],
      steps: [{ call: 'batch', deviceIds: [device], state: 'waiting', plannedAt: GOES_AT }],
      goesAt: GOES_AT,
      createdAt: '2026-11-21T13:02:40Z',
      updatedAt: '2026-11-21T13:02:40Z',
    };
    let change: object = queuedChange;
    stubFetch(
      withNothingFlagged((request) => {
        if (request.method === 'POST')
          return json(202, {
            queued: { changeId: 'chg_b', goesAt: GOES_AT, reason: 'no_slot', deviceIds: [device] },
          });
        if (request.path === '/api/changes/chg_b') return json(200, change);
        return json(200, { commands: [] });
      }),
    );
    const user = userEvent.setup();
    const { queryClient } = renderWithProviders(
      <BatchComposer sites={[site]} onSubmitted={vi.fn()} />,
    );
    await user.click(screen.getByRole('checkbox', { name: `Include ${device}` }));
    await user.type(field('Target battery power (W)'), '-2000');
    await user.click(screen.getByRole('button', { name: 'Submit batch to 1 device' }));
    await vi.waitFor(() =>
      expect(screen.getByText(/^Batch not sent yet\. Queued: it goes at/)).toBeTruthy(),
    );

    const reason =
      'The batch window overlaps a command of BAT-EU-100-01, which is waiting or running.';
    change = {
      ...queuedChange,
      state: 'failed',
      goesAt: undefined,
      steps: [{ ...queuedChange.steps[0], state: 'failed' }],
      outcome: { failure: 'refused', detail: reason },
    };
    // The BFF pushes the change's new state; the stream makes its queries stale.
    for (const filters of invalidationsOf({
      id: '9',
      type: 'queuedChangeChanged',
      data: { changeId: 'chg_b', state: 'failed', deviceIds: [device] },
      createdAt: '2026-11-21T13:03:21Z',
    }))
      await queryClient.invalidateQueries(filters);
    await vi.waitFor(() =>
      expect(screen.getByText(`Batch refused by the vendor when it went. ${reason}`)).toBeTruthy(),
    );
    expect(screen.queryByText(/not sent yet/)).toBeNull();
  });

  it('drops a refusal when the selection or a value changes: it belonged to that attempt', async () => {
    stubFetch(
      withNothingFlagged((request) =>
        request.method === 'POST'
          ? problem(404, 'unknown_or_unbound', 'Site PLANT-EU-100 is not bound (spec 5)')
          : json(200, { commands: [] }),
      ),
    );
    const user = userEvent.setup();
    renderWithProviders(<BatchComposer sites={[site]} onSubmitted={() => {}} />);
    await user.click(screen.getByRole('checkbox', { name: 'Include BAT-EU-100-01' }));
    await user.type(field('Target battery power (W)'), '-2000');
    const refusal = () => screen.queryByText(/The batch was not accepted/);

    await user.click(screen.getByRole('button', { name: 'Submit batch to 1 device' }));
    await vi.waitFor(() => expect(refusal()).not.toBeNull());
    expect(refusal()?.closest('[role="alert"]')?.textContent).toMatch(/not bound to this account/);
    expect(refusal()?.closest('[role="alert"]')?.textContent).not.toMatch(/spec 5/);
    await user.click(screen.getByRole('checkbox', { name: 'Include BAT-EU-100-02' }));
    expect(refusal()).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Submit batch to 2 devices' }));
    await vi.waitFor(() => expect(refusal()).not.toBeNull());
    await user.type(field('Target battery power (W)'), '0');
    expect(refusal()).toBeNull();
  });

  it('names each device to remove when the vendor refuses the batch for devices it does not know', async () => {
    stubFetch(
      withNothingFlagged((request) =>
        request.method === 'POST'
          ? new Response(
              JSON.stringify({
                title: 'Not found',
                status: 404,
                code: 'unknown_or_unbound',
                detail: 'This batch, or one of its devices, was not found.',
                details: { deviceIds: ['BAT-EU-100-02'] },
              }),
              { status: 404, headers: { 'content-type': 'application/problem+json' } },
            )
          : json(200, { commands: [] }),
      ),
    );
    const user = userEvent.setup();
    renderWithProviders(<BatchComposer sites={[site]} onSubmitted={() => {}} />);
    await user.click(screen.getByRole('checkbox', { name: 'Include BAT-EU-100-01' }));
    await user.click(screen.getByRole('checkbox', { name: 'Include BAT-EU-100-02' }));
    await user.type(field('Target battery power (W)'), '-2000');
    await user.click(screen.getByRole('button', { name: 'Submit batch to 2 devices' }));
    const refusal = await screen.findByText(/The batch was not accepted/);
    const alert = refusal.closest('[role="alert"]')?.textContent ?? '';
    expect(alert).toContain('Nothing was sent: BAT-EU-100-02 is not found');
    expect(alert).toContain('Remove it from the batch');
    expect(alert).not.toContain('BAT-EU-100-01');
  });

  it('opens a resend with the failed devices and the command, pre-checked', async () => {
    stubFetch(withNothingFlagged(() => json(200, { commands: [] })));
    renderWithProviders(
      <BatchComposer
        sites={[site]}
        onSubmitted={vi.fn()}
        resend={{
          from: 'batch b_1',
          deviceIds: ['BAT-EU-100-03', 'BAT-EU-100-07', 'GONE-1'],
          command: {
            powerControl: { targetBatteryPowerW: 3000 },
            startTime: '2020-01-01T10:00:00Z',
            endTime: '2020-01-01T12:00:00Z',
          },
        }}
      />,
    );
    expect(screen.getByText(/Sending the command of batch b_1 again/).textContent).toContain(
      'to the 3 devices that failed there',
    );
    expect(screen.getByText('2 of 50')).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('GONE-1 not added');
    expect((field('Target battery power (W)') as HTMLInputElement).value).toBe('3000');
    expect(screen.getByRole('region', { name: 'Pre-check' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Submit batch to 2 devices' })).toBeTruthy();
  });

  it('shows what the batch can deliver, flags the devices that did not follow, and leaves them out undoably', async () => {
    const requests = stubFetch((request) => {
      if (request.path !== '/api/deliverable') return json(200, { commands: [] });
      const body = request.body as { deviceIds: string[]; command?: unknown };
      const flagged = body.deviceIds.includes('BAT-EU-100-11')
        ? [{ deviceId: 'BAT-EU-100-11', notFollowing: 2, of: 3 }]
        : [];
      return json(200, {
        takenAt: '2026-11-21T10:00:00.000Z',
        devices: body.deviceIds.length,
        snapshot: { calls: body.command ? 1 : 0, read: body.command ? 3 : 0, deferred: 0 },
        ...(body.command
          ? {
              power: {
                requestedW: 5000,
                durationMs: 3_600_000,
                commandedW: 5000 * body.deviceIds.length,
                deliverableW: 5000 * (body.deviceIds.length - 1) + 1000,
                measured: body.deviceIds.length,
                cannotLast: [
                  {
                    deviceId: 'BAT-EU-100-16',
                    lastsMs: 12 * 60_000,
                    deliverableW: 1000,
                    capW: 5000,
                    limitedBy: 'stateOfCharge',
                  },
                ],
                cannotLastCount: 1,
                notMeasured: [],
                notMeasuredCount: 0,
              },
            }
          : {}),
        notFollowing: flagged,
        unknown: [],
      });
    });
    const user = userEvent.setup();
    renderWithProviders(<BatchComposer sites={[site]} onSubmitted={vi.fn()} />);
    for (const id of ['01', '11', '16'])
      await user.click(screen.getByRole('checkbox', { name: `Include BAT-EU-100-${id}` }));
    const panel = await screen.findByRole('region', { name: 'Deliverable power' });
    // Without a target power only the flags are asked for: nothing is read of the devices.
    await within(panel).findByText(/Set a target battery power/);
    const chips = within(screen.getByRole('list', { name: 'Devices in the batch' }));
    expect(chips.getByText('did not follow 2 of its last 3 commands')).toBeTruthy();

    await user.type(field('Target battery power (W)'), '5 kW');
    await within(panel).findByText('Deliverable about 11 kW for 1 h of 15 kW commanded');
    const asked = requests.filter((request) => request.path === '/api/deliverable').at(-1);
    expect(asked?.body).toMatchObject({
      deviceIds: ['BAT-EU-100-01', 'BAT-EU-100-11', 'BAT-EU-100-16'],
      command: { powerControl: { targetBatteryPowerW: 5000 } },
    });
    expect(within(panel).getByText('1 device cannot last the 1 h window')).toBeTruthy();
    expect(
      within(panel)
        .getByText(/BAT-EU-100-16/)
        .closest('li')?.textContent,
    ).toBe('BAT-EU-100-16 lasts 12 min before its cut-off; holds 1 kW over the window');

    await user.click(
      within(panel).getByRole('button', { name: 'Leave out 1 device that did not follow' }),
    );
    expect(screen.getByText('2 of 50')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Remove BAT-EU-100-11' })).toBeNull();
    expect(
      within(panel).getByText(/Left out 1 device that did not follow: BAT-EU-100-11/),
    ).toBeTruthy();

    await user.click(within(panel).getByRole('button', { name: 'Put it back' }));
    expect(screen.getByText('3 of 50')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Remove BAT-EU-100-11' })).toBeTruthy();
  });
});
