import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Site } from '../../../../../domain/device.ts';
import type { FleetPlanRequest } from '../../../../../domain/fleet-job.ts';
import { json, stubFetch } from '../../../../testing/fake-fetch.ts';
import { renderWithProviders } from '../../../../testing/render.tsx';
import { testDevice } from '../../../../testing/test-devices.ts';
import { FleetPlanUpload } from '../fleet-plan-upload.tsx';

const RANGE = { targetBatteryPowerW: { min: -5000, max: 5000 } };
const SITES: Site[] = [
  {
    siteId: 'PLANT-1',
    name: 'Plant 1',
    timeZone: 'Europe/Berlin',
    devices: [testDevice('BAT-A', RANGE), testDevice('BAT-B', RANGE)],
  },
];

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
    expect(screen.getByRole('button', { name: 'Drop 3 refused and send 1 row' })).toBeTruthy();
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
