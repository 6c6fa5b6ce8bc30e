import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Site } from '#domain/device.ts';
import type { FleetPlanRequest } from '#domain/fleet-job.ts';
import { json, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { testDevice } from '#client/testing/test-devices.ts';
import { FleetPlanUpload } from '../fleet-plan-upload.tsx';

const RANGE = { targetBatteryPowerW: { min: -5000, max: 5000 } };
const SITES: Site[] = [
  {
    siteId: 'PLANT-1',
    name: 'Plant 1',
    timeZone: 'Europe/Berlin',
    clock: { source: 'inferred', vendorOffset: '+01:00' },
    devices: [testDevice('BAT-A', RANGE), testDevice('BAT-B', RANGE)],
  },
];

/**
 * A fake BFF whose plan check accepts every row it is sent; any other request answers 500. The
 * requests it recorded.
 */
const stubCheckAcceptingEveryRow = () =>
  stubFetch((request) => {
    if (request.path !== '/api/fleet-plans/check') return json(500, {});
    const { rows } = request.body as Pick<FleetPlanRequest, 'rows'>;
    return json(200, { accepted: rows, refused: [] });
  });

describe('FleetPlanUpload', () => {
  it('reads site-clock columns, names each refused row, and sends only the rows the server accepts', async () => {
    const user = userEvent.setup();
    const requests = stubFetch((request) => {
      const { rows } = request.body as Pick<FleetPlanRequest, 'rows'>;
      // The server refuses BAT-B's row as overlapping a command it holds.
      return json(200, {
        accepted: rows.filter((row) => row.deviceId !== 'BAT-B'),
        refused: rows
          .filter((row) => row.deviceId === 'BAT-B')
          .map((row) => ({
            line: row.line,
            deviceId: row.deviceId,
            reasons: ['its window overlaps a command of this device that is executing'],
          })),
      });
    });
    const { container } = renderWithProviders(
      <FleetPlanUpload sites={SITES} onCreated={vi.fn()} />,
    );
    expect(screen.getByText('No plan chosen yet.')).toBeTruthy();
    const csv = [
      'deviceId,start_site,end_site,targetBatteryPowerW',
      'BAT-A,2030-01-10 18:00,2030-01-10 19:00,3000',
      'BAT-A,2030-01-10 18:30,2030-01-10 19:30,3000',
      'BAT-B,2030-01-10 18:00,2030-01-10 19:00,3000',
      'BAT-X,2030-01-10 18:00,2030-01-10 19:00,3000',
    ].join('\n');
    const input = container.querySelector<HTMLInputElement>('input[type=file]');
    if (!input) throw new Error('no file input');
    await user.upload(input, new File([csv], 'plan.csv', { type: 'text/csv' }));

    expect(await screen.findByText('1 of 4 rows can be sent; 3 refused.')).toBeTruthy();
    // Berlin is UTC+1 in January: the site clock's 18:00 is 17:00 UTC.
    expect(requests[0]?.path).toBe('/api/fleet-plans/check');
    expect((requests[0]?.body as Pick<FleetPlanRequest, 'rows'>).rows).toEqual([
      expect.objectContaining({ line: 2, deviceId: 'BAT-A' }),
      expect.objectContaining({ line: 4, deviceId: 'BAT-B' }),
    ]);
    expect((requests[0]?.body as Pick<FleetPlanRequest, 'rows'>).rows[0]?.command.startTime).toBe(
      '2030-01-10T17:00:00.000Z',
    );
    const table = screen.getByRole('table', { name: 'Checked rows' });
    const row = (line: number) =>
      within(table)
        .getAllByRole('row')
        .find((r) => r.textContent?.startsWith(String(line)));
    expect(row(3)?.textContent).toContain(
      'Refused: its window overlaps line 2 for the same device',
    );
    expect(row(4)?.textContent).toContain('overlaps a command of this device that is executing');
    expect(row(5)?.textContent).toContain('BAT-X is not in a bound site');
    // Controls in the product's words, a refused row's too: never a property name and a number.
    expect(row(2)?.textContent).toContain('3 kW discharge');
    expect(row(3)?.textContent).toContain('3 kW discharge');
    expect(table.textContent).not.toContain('targetBatteryPowerW');
    expect(screen.getByRole('button', { name: 'Drop 3 refused and send 1 row' })).toBeTruthy();
  });

  it('sends the plan with the rollout the operator chose, and not while a field breaks its rule', async () => {
    const user = userEvent.setup();
    const requests = stubCheckAcceptingEveryRow();
    const { container } = renderWithProviders(
      <FleetPlanUpload sites={SITES} onCreated={vi.fn()} />,
    );
    const csv =
      'deviceId,start_utc,end_utc,targetBatteryPowerW\nBAT-A,2030-01-10 17:00Z,2030-01-10 18:00Z,3000';
    const input = container.querySelector<HTMLInputElement>('input[type=file]');
    if (!input) throw new Error('no file input');
    await user.upload(input, new File([csv], 'plan.csv', { type: 'text/csv' }));
    const send = await screen.findByRole('button', { name: 'Send 1 row' });
    const perMinute = screen.getByLabelText('Batches per minute');
    await user.clear(perMinute);
    await user.type(perMinute, '700');
    expect(screen.getByText('Enter a number from 0.1 to 600.')).toBeTruthy();
    expect(send.hasAttribute('disabled') || send.getAttribute('aria-disabled') === 'true').toBe(
      true,
    );
    await user.clear(perMinute);
    await user.type(perMinute, '5');
    const abort = screen.getByLabelText('Stop when failed or cancelled exceeds (%)');
    await user.clear(abort);
    await user.type(abort, '20');
    await user.click(send);
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', {
        name: 'Send 1 row now',
      }),
    );
    const sent = requests.find((request) => request.path === '/api/fleet-plans');
    expect((sent?.body as FleetPlanRequest).rollout).toEqual({
      batchSize: 50,
      batchesPerMinute: 5,
      abortPercent: 20,
    });
  });

  it('starts with a rollout that protects the fleet, and asks before sending: devices, window and pace', async () => {
    const user = userEvent.setup();
    const requests = stubCheckAcceptingEveryRow();
    const many: Site[] = [
      {
        siteId: 'PLANT-1',
        name: 'Plant 1',
        timeZone: 'Europe/Berlin',
        clock: { source: 'inferred', vendorOffset: '+01:00' },
        devices: Array.from({ length: 7 }, (_, i) => testDevice(`BAT-${i + 1}`, RANGE)),
      },
    ];
    const { container } = renderWithProviders(<FleetPlanUpload sites={many} onCreated={vi.fn()} />);
    const csv = [
      'deviceId,start_utc,end_utc,targetBatteryPowerW',
      ...Array.from(
        { length: 7 },
        (_, i) => `BAT-${i + 1},2030-01-10 17:00Z,2030-01-10 18:${i === 6 ? '30' : '00'}Z,3000`,
      ),
    ].join('\n');
    const input = container.querySelector<HTMLInputElement>('input[type=file]');
    if (!input) throw new Error('no file input');
    await user.upload(input, new File([csv], 'plan.csv', { type: 'text/csv' }));
    const send = await screen.findByRole('button', { name: 'Send 7 rows' });
    // A stop threshold by default, and a pace an operator can follow.
    expect(screen.getByLabelText('Stop when failed or cancelled exceeds (%)')).toHaveProperty(
      'value',
      '10',
    );
    expect(screen.getByLabelText('Batches per minute')).toHaveProperty('value', '10');
    const batchSize = screen.getByLabelText('Devices per batch');
    await user.clear(batchSize);
    await user.type(batchSize, '3');

    await user.click(send);
    const dialog = await screen.findByRole('alertdialog');
    const text = dialog.textContent ?? '';
    expect(text).toContain('7 devices');
    expect(text).toContain('BAT-1, BAT-2, BAT-3, BAT-4, BAT-5 and 2 more');
    // The window on the site clock (Berlin is UTC+1 in January), UTC at hand.
    expect(text).toContain('2030-01-10 18:00–19:30 (Europe/Berlin)');
    expect(text).toContain('UTC 2030-01-10 17:00–18:30');
    expect(text).toContain('3 batches of up to 3 devices, 10 a minute');
    expect(text).toContain('more than 10% of the devices sent so far failed or were cancelled');
    // Focus is in the dialog, on the button that sends nothing.
    expect(dialog.contains(document.activeElement)).toBe(true);
    expect(document.activeElement?.textContent).toBe('Keep editing');
    // Escape backs out: nothing is sent.
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(requests.some((request) => request.path === '/api/fleet-plans')).toBe(false);

    await user.click(send);
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', {
        name: 'Send 7 rows now',
      }),
    );
    await vi.waitFor(() =>
      expect(requests.filter((request) => request.path === '/api/fleet-plans')).toHaveLength(1),
    );
    expect(
      (requests.find((request) => request.path === '/api/fleet-plans')?.body as FleetPlanRequest)
        .rollout,
    ).toEqual({ batchSize: 3, batchesPerMinute: 10, abortPercent: 10 });
  });

  it('says what a file lacks when it is not a plan', async () => {
    const user = userEvent.setup();
    stubFetch(() => json(500, {}));
    const { container } = renderWithProviders(
      <FleetPlanUpload sites={SITES} onCreated={vi.fn()} />,
    );
    const input = container.querySelector<HTMLInputElement>('input[type=file]');
    if (!input) throw new Error('no file input');
    await user.upload(input, new File(['deviceId,start,end\nBAT-A,x,y'], 'plan.csv'));
    expect((await screen.findByRole('alert')).textContent).toContain(
      "plan.csv has no start column: name it start_utc (times in UTC) or start_site (times on the site's clock).",
    );
  });
});
