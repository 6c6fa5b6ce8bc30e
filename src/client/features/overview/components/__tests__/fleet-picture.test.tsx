import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetPictureSchema, type FleetPicture } from '#domain/fleet-picture.ts';
import { installDesignTokens } from '#client/testing/design-tokens.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { FIRST_ATTENTION, FIRST_SITES, FleetPictureView } from '../fleet-picture.tsx';

let removeTokens: () => void;
beforeAll(() => {
  removeTokens = installDesignTokens();
});
afterAll(() => removeTokens());

const AT = '2026-03-10T12:00:00.000Z';
const minutesBefore = (minutes: number) =>
  new Date(Date.parse(AT) - minutes * 60_000).toISOString();

const site = (siteId: string, dischargingW: number, chargingW: number, socPercent: number) => ({
  siteId,
  siteName: `Site ${siteId}`,
  timeZone: 'Europe/Berlin',
  devices: 10,
  reporting: 10,
  dischargingW,
  chargingW,
  pvW: 0,
  gridImportW: 0,
  gridExportW: 0,
  socPercent,
});

/** A fleet of 10,000 devices, 9,950 reporting; parsed, so the fixture is an answer the BFF may give. */
function picture(overrides: Partial<FleetPicture> = {}): FleetPicture {
  return FleetPictureSchema.parse({
    generatedAt: AT,
    snapshotAt: minutesBefore(1),
    devices: { total: 10_000, reporting: 9_950, silent: 50 },
    power: {
      dischargingW: 3_421_000,
      chargingW: 850,
      pvW: 200_000,
      gridImportW: 269_000,
      gridExportW: 2_470_000,
    },
    energy: { storedKwh: 61_234, capacityKwh: 100_000 },
    socBands: [120, 310, 640, 980, 1410, 2020, 1800, 1210, 860, 600],
    sites: [site('A', 190_000, 35_800, 20), site('B', 5_000, 0, 92), site('C', 0, 80_000, 56)],
    running: [],
    attention: [],
    counts: { sites: 3, attention: 0 },
    ...overrides,
  });
}

/** The `index`th of `list`, which the test expects to be there. */
function nth<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`nothing at ${index}`);
  return item;
}

const show = (answer: FleetPicture) => renderWithProviders(<FleetPictureView picture={answer} />);

/** The value of the big number labelled `label`: its figure, unit and note. */
function figure(label: string): string {
  const term = screen.getByText(label, { selector: 'dt' });
  return term.parentElement?.textContent?.slice(label.length) ?? '';
}

describe('the fleet picture', () => {
  it('gives power, devices and energy as big numbers, in kW or MW, with directions in words', () => {
    show(picture());
    expect(figure('Discharging now')).toContain('3.42 MW');
    expect(figure('Charging now')).toContain('850 W');
    expect(figure('Net')).toContain('3.42 MW discharging');
    expect(figure('Devices reporting')).toContain('9,950 of 10,000');
    expect(figure('Devices reporting')).toContain('50 silent');
    expect(figure('Stored energy')).toContain('61.2 MWh');
    expect(figure('Stored energy')).toContain('of 100 MWh (61%)');
  });

  it('says a fleet that charges more than it discharges is charging, never with a minus sign', () => {
    show(
      picture({
        power: { dischargingW: 1000, chargingW: 26_000, pvW: 0, gridImportW: 0, gridExportW: 0 },
      }),
    );
    expect(figure('Net')).toContain('25 kW charging');
    expect(figure('Net')).not.toMatch(/[-−]\s?\d/);
  });

  it('says when no device has been measured yet, and when none is bound', () => {
    const { unmount } = show(
      picture({
        snapshotAt: undefined,
        devices: { total: 40, reporting: 0, silent: 40 },
        socBands: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        sites: [],
      }),
    );
    expect(
      screen.getByText(
        /No measurements yet: powerdeck reads each device's latest sample every few minutes/,
      ).textContent,
    ).toContain('40 devices bound, none reporting yet');
    expect(screen.queryByText('Discharging now')).toBeNull();
    unmount();
    show(
      picture({
        snapshotAt: undefined,
        devices: { total: 0, reporting: 0, silent: 0 },
        sites: [],
        counts: { sites: 0, attention: 0 },
      }),
    );
    expect(screen.getByText(/No device is bound yet/)).toBeTruthy();
  });

  it('says how old the measurements are when the newest sample is older than a few minutes', () => {
    const { unmount } = show(picture({ snapshotAt: minutesBefore(3) }));
    expect(screen.queryByText(/measurements are .* old/)).toBeNull();
    unmount();
    show(picture({ snapshotAt: minutesBefore(37) }));
    const notice = screen.getByRole('status');
    expect(notice.textContent).toContain('These measurements are 37 minutes old');
    expect(notice.textContent).toContain('UTC 2026-03-10 11:23');
  });

  it('lists the devices that need attention with their reason in words, linked to each device', async () => {
    const lines = [
      {
        deviceId: 'BAT-1',
        siteId: 'A',
        reason: 'repeatedlyNotFollowing',
        commandId: 'cmd_1',
        at: minutesBefore(20),
      },
      { deviceId: 'BAT-2', siteId: 'B', reason: 'notFollowing', commandId: 'cmd_2', at: AT },
      { deviceId: 'BAT-3', siteId: 'A', reason: 'noData', commandId: 'cmd_3', at: AT },
      { deviceId: 'BAT-4', siteId: 'Z', reason: 'silent' },
      ...Array.from({ length: 96 }, (_, i) => ({
        deviceId: `BAT-S${i}`,
        siteId: 'B',
        reason: 'silent' as const,
        at: minutesBefore(30),
      })),
    ] satisfies FleetPicture['attention'];
    show(picture({ attention: lines, counts: { sites: 3, attention: 250 } }));
    const panel = screen.getByRole('region', { name: /^Not following or silent/ });
    expect(within(panel).getByRole('heading').textContent).toBe('Not following or silent 250');
    const items = within(panel).getAllByRole('listitem');
    expect(items).toHaveLength(FIRST_ATTENTION);
    const first = nth(items, 0);
    const second = nth(items, 1);
    const third = nth(items, 2);
    const fourth = nth(items, 3);
    expect(within(first).getByRole('link', { name: 'BAT-1' }).getAttribute('href')).toBe(
      '/sites/A/devices/BAT-1',
    );
    // The window's end on the site's clock (Berlin, UTC+1 in March) with UTC beside it.
    expect(first.textContent).toContain('Did not follow 2 of its last 3 commands');
    expect(first.textContent).toContain('window ended 12:40 (Europe/Berlin), UTC 11:40');
    expect(within(first).getByRole('link', { name: 'Site A' }).getAttribute('href')).toBe(
      '/sites?site=A',
    );
    expect(second.textContent).toContain('Not following: its power did not follow');
    expect(third.textContent).toContain("No data in its last command's window");
    // A site the answer does not list is named by its ID.
    expect(fourth.textContent).toContain('Silent');
    expect(fourth.textContent).toContain('never measured');
    expect(within(fourth).getByRole('link', { name: 'Z' })).toBeTruthy();

    await userEvent.click(within(panel).getByRole('button', { name: 'Show all 100 devices' }));
    expect(within(panel).getAllByRole('listitem')).toHaveLength(100);
    expect(panel.textContent).toContain('The first 100 of 250 are listed.');
  });

  it('says when nothing needs attention', () => {
    show(picture());
    expect(
      within(screen.getByRole('region', { name: /^Not following or silent/ })).getByText(
        /Every device reports, and none failed to follow its last command/,
      ),
    ).toBeTruthy();
  });

  it('gives the state of charge chart a summary and a table of its ten bands', () => {
    show(picture());
    const panel = screen.getByRole('region', { name: 'State of charge' });
    const caption = panel.querySelector('figcaption');
    expect(caption?.textContent).toBe(
      '9,950 devices report their state of charge. Most, 2,020, are at 50–60%; 120 below 10% and 600 at 90% or more.',
    );
    const table = within(panel).getByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual([
      '0–10%120',
      '10–20%310',
      '20–30%640',
      '30–40%980',
      '40–50%1,410',
      '50–60%2,020',
      '60–70%1,800',
      '70–80%1,210',
      '80–90%860',
      '90–100%600',
    ]);
  });

  it('names the chart as one focusable image described by its summary, once recharts has loaded', async () => {
    show(picture());
    const chart = await screen.findByRole('img', { name: /^State of charge across the fleet/ });
    expect(chart.tabIndex).toBe(0);
    const caption = screen
      .getByRole('region', { name: 'State of charge' })
      .querySelector('figcaption');
    expect(chart.getAttribute('aria-describedby')).toBe(caption?.id);
  });

  it('lists power per site, most moving first, sortable by each column', async () => {
    show(picture());
    const table = within(screen.getByRole('region', { name: /^Power by site/ })).getByRole('table');
    const names = () =>
      within(table)
        .getAllByRole('rowheader')
        .map((cell) => cell.textContent);
    expect(names()).toEqual(['Site A', 'Site C', 'Site B']);
    const rowC = nth(within(table).getAllByRole('row'), 2);
    expect(rowC.textContent).toContain('80 kW');
    expect(within(rowC).getByRole('link', { name: 'Site C' }).getAttribute('href')).toBe(
      '/sites?site=C',
    );
    await userEvent.click(within(table).getByRole('button', { name: /^SoC/ }));
    expect(names()).toEqual(['Site B', 'Site C', 'Site A']);
    expect(
      within(table).getByRole('columnheader', { name: /^SoC/ }).getAttribute('aria-sort'),
    ).toBe('descending');
    await userEvent.click(within(table).getByRole('button', { name: /^SoC/ }));
    expect(names()).toEqual(['Site A', 'Site C', 'Site B']);
    await userEvent.click(within(table).getByRole('button', { name: /^Site/ }));
    expect(names()).toEqual(['Site A', 'Site B', 'Site C']);
  });

  it(`shows the first ${FIRST_SITES} sites and all on request, saying when the answer lists fewer than there are`, async () => {
    const many = Array.from({ length: 100 }, (_, i) => site(`S${i}`, 1000 * (100 - i), 0, 50));
    show(picture({ sites: many, counts: { sites: 140, attention: 0 } }));
    const panel = screen.getByRole('region', { name: /^Power by site/ });
    expect(within(panel).getAllByRole('rowheader')).toHaveLength(FIRST_SITES);
    await userEvent.click(within(panel).getByRole('button', { name: 'Show all 100 sites' }));
    expect(within(panel).getAllByRole('rowheader')).toHaveLength(100);
    expect(panel.textContent).toContain('The 100 sites moving most power of 140 are listed.');
  });

  it('shows what runs now with what it gives against what it was commanded, in words and numbers', () => {
    const event = {
      startTime: minutesBefore(30),
      endTime: new Date(Date.parse(AT) + 90 * 60_000).toISOString(),
    };
    show(
      picture({
        running: [
          {
            kind: 'fleetJob',
            id: '0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b',
            ...event,
            devices: 8500,
            commandedW: 34_000_000,
            measuredW: 27_100_000,
            measuredDevices: 8410,
          },
          {
            kind: 'batch',
            id: '12',
            batchCommandId: 'batch_1',
            siteId: 'A',
            ...event,
            devices: 10,
            commandedW: 4000,
            measuredW: -300,
            measuredDevices: 9,
          },
        ],
      }),
    );
    const panel = screen.getByRole('region', { name: /^Running now/ });
    const job = nth(within(panel).getAllByRole('listitem'), 0);
    const batch = nth(within(panel).getAllByRole('listitem'), 1);
    expect(
      within(job).getByRole('link', { name: 'Fleet job of 8,500 devices' }).getAttribute('href'),
    ).toBe('/fleet-jobs/0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b');
    expect(job.textContent).toContain('27.1 MW of 34 MW discharging commanded (80%)');
    expect(job.textContent).toContain('8,410 of 8,500 devices measured');
    expect(within(batch).getByRole('link', { name: 'Batch batch_1' }).getAttribute('href')).toBe(
      '/batches/batch_1',
    );
    // Opposite to its command: said in words, not as a negative percent.
    expect(batch.textContent).toContain('300 W charging now, against 4 kW discharging commanded');
    // Its window on the site's clock with UTC, whole for a screen reader.
    expect(batch.textContent).toContain(
      '2026-03-10 12:30–14:30 (Europe/Berlin), UTC 2026-03-10 11:30–13:30',
    );
  });
});
