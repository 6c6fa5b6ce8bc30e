import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Overview } from '#domain/overview.ts';
import { json, problem, stubFetch } from '../../testing/fake-fetch.ts';
import { renderApp } from '../../testing/render.tsx';
import { BATTERY_A, harbourPlant } from '../../testing/test-devices.ts';

const SITE = harbourPlant([
  BATTERY_A,
  { deviceId: 'BAT-EU-001-B', name: 'Battery B', model: 'PD-10', capabilities: {}, online: false },
]);
const place = {
  deviceId: 'BAT-EU-001-A',
  deviceName: 'Battery A',
  siteId: 'PLANT-EU-001',
  siteName: 'Harbour plant',
  timeZone: 'Europe/Berlin',
};
const OVERVIEW: Overview = {
  region: 'eu',
  generatedAt: '2026-03-10T12:00:00.000Z',
  upcomingHours: 6,
  recentHours: 24,
  executing: [
    {
      ...place,
      commandId: 'cmd_1',
      powerControl: { targetBatteryPowerW: -2000 },
      startTime: '2026-03-10T11:00:00.000Z',
      endTime: '2026-03-10T13:00:00.000Z',
      status: 'executing',
    },
  ],
  upcoming: [],
  attention: [
    {
      ...place,
      commandId: 'cmd_0',
      startTime: '2026-03-10T09:00:00.000Z',
      endTime: '2026-03-10T10:00:00.000Z',
      status: 'cancelled',
      cancelReason: 'startTimeExpire',
      endedAt: '2026-03-10T09:00:00.000Z',
    },
  ],
  cancelledByOperator: [],
  batches: [],
  fleetJobs: [],
  trouble: [
    {
      siteId: 'PLANT-EU-001',
      siteName: 'Harbour plant',
      timeZone: 'Europe/Berlin',
      deviceId: 'BAT-EU-001-B',
      deviceName: 'Battery B',
      offline: true,
      faulted: false,
    },
  ],
  counts: {
    executing: 1,
    upcoming: 0,
    attention: 1,
    cancelledByOperator: 0,
    batches: 0,
    fleetJobs: 0,
    trouble: 1,
  },
};

function fakeBff() {
  return stubFetch((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session') return json(200, { region: 'eu', clientId: 'demo-eu' });
    if (route === 'GET /api/sites') return json(200, { sites: [SITE] });
    if (route === 'GET /api/overview') return json(200, OVERVIEW);
    return problem(404, 'not_found', `no route ${route}`);
  });
}

describe('the overview', () => {
  it('opens at /, asks for the signed-in region, and links each line on the site clock', async () => {
    const requests = fakeBff();
    const { router } = renderApp('/');
    const executing = await screen.findByRole('region', { name: /^Executing now/ });
    expect(router.state.location.pathname).toBe('/overview');
    expect(
      requests.some((r) => r.path === '/api/overview' && r.search.get('region') === 'eu'),
    ).toBe(true);
    const line = within(executing).getByRole('listitem');
    expect(
      within(line).getByRole('link', { name: 'Battery A (BAT-EU-001-A)' }).getAttribute('href'),
    ).toBe('/sites/PLANT-EU-001/devices/BAT-EU-001-A');
    expect(line.textContent).toContain('2 kW charge');
    // 11:00-13:00 UTC is 12:00-14:00 in Berlin in March.
    expect(line.textContent).toContain(
      '2026-03-10 12:00–14:00 (Europe/Berlin), UTC 2026-03-10 11:00–13:00',
    );
    expect(line.textContent).toContain('Executing');

    const ended = screen.getByRole('region', { name: /^Needs attention/ });
    expect(ended.textContent).toContain(
      'The start time passed before the device could begin (device offline?)',
    );
    const trouble = screen.getByRole('region', { name: /^Offline or faulted/ });
    expect(within(trouble).getByRole('link', { name: 'Harbour plant' }).getAttribute('href')).toBe(
      '/sites?site=PLANT-EU-001',
    );
    expect(trouble.textContent).toContain('Offline');
    expect(screen.getByRole('region', { name: /^Batches under way/ }).textContent).toContain(
      'No batch is under way.',
    );
  });
});

describe("the overview's ended commands", () => {
  it("shows what needs attention, and an operator's cancels only when asked for", async () => {
    const cancelled = (commandId: string, endedAt: string) => ({
      ...place,
      commandId,
      startTime: '2026-03-10T13:00:00.000Z',
      endTime: '2026-03-10T14:00:00.000Z',
      status: 'cancelled' as const,
      cancelReason: 'manuallyCancel' as const,
      endedAt,
    });
    const fault = {
      ...place,
      commandId: 'cmd_fault',
      startTime: '2026-03-10T11:00:00.000Z',
      endTime: '2026-03-10T12:30:00.000Z',
      status: 'cancelled' as const,
      cancelReason: 'deviceFault' as const,
      endedAt: '2026-03-10T11:40:00.000Z',
    };
    stubFetch((request) => {
      const route = `${request.method} ${request.path}`;
      if (route === 'GET /api/session') return json(200, { region: 'eu', clientId: 'demo-eu' });
      if (route === 'GET /api/sites') return json(200, { sites: [SITE] });
      if (route === 'GET /api/overview')
        return json(200, {
          ...OVERVIEW,
          attention: [fault],
          cancelledByOperator: [
            cancelled('cmd_undone', '2026-03-10T11:50:00.000Z'),
            cancelled('cmd_replaced', '2026-03-10T11:45:00.000Z'),
          ],
          counts: { ...OVERVIEW.counts, attention: 1, cancelledByOperator: 2 },
        });
      return problem(404, 'not_found', `no route ${request.method} ${request.path}`);
    });
    const user = userEvent.setup();
    renderApp('/overview');
    const section = await screen.findByRole('region', { name: /^Needs attention/ });
    expect(within(section).getByRole('heading').textContent).toBe(
      'Needs attention in the last 24 hours 1',
    );
    const lines = () => within(section).getAllByRole('listitem');
    expect(lines()).toHaveLength(1);
    expect(lines()[0]?.textContent).toContain('A device fault prevented or stopped execution');
    expect(section.textContent).not.toContain('Cancelled by an operator:');

    const filter = within(section).getByRole('radiogroup', { name: 'Show' });
    const shown = (name: RegExp) => within(filter).getByRole('radio', { name });
    expect(shown(/^Needs attention/).getAttribute('aria-checked')).toBe('true');
    await user.click(shown(/^Cancelled by an operator \(2\)/));
    expect(lines()).toHaveLength(2);
    expect(lines().every((line) => line.textContent.includes('Cancelled by an operator'))).toBe(
      true,
    );
    expect(section.textContent).not.toContain('A device fault');
  });
});

describe("the overview's batches", () => {
  it("folds a batch's device commands of a section into one line that opens to them", async () => {
    const batchLine = (deviceId: string, status?: 'received') => ({
      ...place,
      deviceId,
      deviceName: undefined,
      commandId: `cmd_${deviceId}`,
      batchCommandId: 'BATCH-7',
      powerControl: { targetBatteryPowerW: 1000 },
      startTime: '2026-03-10T14:00:00.000Z',
      endTime: '2026-03-10T15:00:00.000Z',
      ...(status ? { status } : {}),
    });
    const upcoming = [
      batchLine('BAT-EU-100-01', 'received'),
      { ...OVERVIEW.executing[0], commandId: 'cmd_9', status: 'received' as const },
      batchLine('BAT-EU-100-02', 'received'),
      batchLine('BAT-EU-100-03'),
    ];
    stubFetch((request) => {
      const route = `${request.method} ${request.path}`;
      if (route === 'GET /api/session') return json(200, { region: 'eu', clientId: 'demo-eu' });
      if (route === 'GET /api/sites') return json(200, { sites: [SITE] });
      if (route === 'GET /api/overview')
        return json(200, { ...OVERVIEW, upcoming, counts: { ...OVERVIEW.counts, upcoming: 4 } });
      return problem(404, 'not_found', `no route ${route}`);
    });
    renderApp('/overview');
    const section = await screen.findByRole('region', { name: /^Starts in the next 6 hours/ });
    const entries = [...(section.querySelector('ul')?.children ?? [])];
    // The batch where its first line was, then the other device's own line.
    expect(entries).toHaveLength(2);
    const [batch, single] = entries as HTMLElement[];
    expect(
      within(batch as HTMLElement)
        .getAllByRole('link')[0]
        ?.getAttribute('href'),
    ).toBe('/batches/BATCH-7');
    expect(batch?.textContent).toContain('Batch BATCH-7');
    expect(batch?.textContent).toContain('3 devices · Harbour plant');
    expect(batch?.textContent).toContain('1 kW discharge');
    expect(batch?.textContent).toContain('Waiting for its start: 3');
    const fold = batch?.querySelector('details');
    expect(fold?.querySelector('summary')?.textContent).toBe('Its 3 devices');
    expect(fold?.querySelectorAll('li')).toHaveLength(3);
    expect(single?.textContent).toContain('Battery A (BAT-EU-001-A)');
  });
});

describe('the search across sites and devices', () => {
  it('opens with Ctrl+K, filters as one types, goes with Enter, and closes with Escape', async () => {
    fakeBff();
    const user = userEvent.setup();
    const { router } = renderApp('/overview');
    await screen.findByRole('region', { name: /^Executing now/ });

    await user.keyboard('{Control>}k{/Control}');
    const field = await screen.findByRole('searchbox', { name: 'Search sites and devices' });
    await waitFor(() => expect(document.activeElement).toBe(field));
    await user.keyboard('{Escape}');
    await waitFor(() =>
      expect(screen.queryByRole('searchbox', { name: 'Search sites and devices' })).toBeNull(),
    );

    await user.keyboard('{Meta>}k{/Meta}');
    await screen.findByRole('searchbox', { name: 'Search sites and devices' });
    await user.keyboard('battery b');
    const menu = screen.getByRole('menu', { name: 'Search sites and devices' });
    await waitFor(() => expect(within(menu).getAllByRole('menuitem')).toHaveLength(1));
    expect(within(menu).getByRole('menuitem').textContent).toContain('BAT-EU-001-B');
    await user.keyboard('{ArrowDown}{Enter}');
    await waitFor(() =>
      expect(router.state.location.pathname).toBe('/sites/PLANT-EU-001/devices/BAT-EU-001-B'),
    );
    expect(screen.queryByRole('searchbox', { name: 'Search sites and devices' })).toBeNull();
  });
});
