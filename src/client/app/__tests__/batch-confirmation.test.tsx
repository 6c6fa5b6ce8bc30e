import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import type { LedgerEntry } from '#domain/ledger.ts';
import { batchCommandOf, oneDeviceBatchEntry } from '../../testing/batch-records.ts';
import { json, problem, stubFetch } from '../../testing/fake-fetch.ts';
import { renderApp } from '../../testing/render.tsx';
import { adelaideDepot } from '../../testing/test-devices.ts';
// Loaded ahead: the lazy route transforms on first use, which a loaded machine makes slow.
import '../routes/batch-detail.tsx';

const WINDOW = batchCommandOf({ targetBatteryPowerW: 1000 });
const ENTRY: LedgerEntry = oneDeviceBatchEntry('BAT-AU-002-D', {
  id: '12',
  region: 'au',
  clientId: 'demo-au',
  siteId: 'PLANT-AU-002',
  outcome: {
    status: 202,
    commands: [],
    confirmation: 'confirming',
    unconfirmed: [{ deviceId: 'BAT-AU-002-D', state: 'confirming' }],
  },
  timeZone: '+09:30',
  createdAt: '2026-11-21T10:00:00Z',
});
const FOUND: LedgerEntry = {
  ...ENTRY,
  outcome: {
    status: 202,
    commands: [{ deviceId: 'BAT-AU-002-D', id: 'cmd_1' }],
    confirmation: 'confirmed',
    unconfirmed: [],
  },
};
const RECORD: StatusRecord = {
  ...WINDOW,
  id: 'cmd_1',
  deviceId: 'BAT-AU-002-D',
  status: 'received',
  receivedAt: '2026-11-21T10:00:05Z',
};

/** A signed-in BFF whose ledger holds `entries()` as they are at each read. */
function fakeBff(entries: () => LedgerEntry[]) {
  return stubFetch((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session') return json(200, { region: 'au', clientId: 'demo-au' });
    if (route === 'GET /api/sites') return json(200, { sites: [adelaideDepot()] });
    if (route === 'GET /api/ledger')
      return json(200, {
        entries: request.search.get('kind') === 'batch' ? entries() : [],
      });
    if (route === 'GET /api/devices/BAT-AU-002-D/commands/cmd_1') return json(200, RECORD);
    return problem(404, 'not_found', `no route ${route}`);
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the batch page while its devices are being confirmed', () => {
  it("reads the batch again until each device's command is found, on the site's clock, with its notice", async () => {
    vi.useFakeTimers({
      shouldAdvanceTime: true,
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'],
    });
    let reads = 0;
    fakeBff(() => (++reads === 1 ? [ENTRY] : [FOUND]));
    renderApp('/batches/batch_1');

    const row = await screen.findByRole('row', { name: /BAT-AU-002-D/ }, { timeout: 5000 });
    expect(row.textContent).toContain('Not confirmed yet');
    expect(document.querySelector('.site-clock-warning')?.textContent).toContain(
      'Times for Adelaide Depot are on a fixed UTC+09:30 clock',
    );
    expect(screen.getByText('Submitted').nextElementSibling?.textContent).toBe(
      '2026-11-21 19:30 (UTC+09:30), UTC 2026-11-21 10:00',
    );

    await vi.advanceTimersByTimeAsync(5000);
    await waitFor(() =>
      expect(screen.getByRole('row', { name: /BAT-AU-002-D/ }).textContent).toContain(
        'Received (pending)',
      ),
    );
    expect(screen.getByRole('row', { name: /BAT-AU-002-D/ }).textContent).toContain('cmd_1');
    expect(reads).toBeGreaterThanOrEqual(2);
    // Confirmed: no more reads of the batch.
    const settled = reads;
    await vi.advanceTimersByTimeAsync(15_000);
    expect(reads).toBe(settled);
  });

  it('opens a batch without a batch ID by its ledger entry', async () => {
    const requests = fakeBff(() => [
      { ...FOUND, batchCommandId: undefined, outcome: { ...FOUND.outcome, reconciled: 'found' } },
    ]);
    renderApp('/batches/entry/12');
    const heading = await screen.findByRole(
      'heading',
      { level: 1, name: /Batch sent/ },
      {
        timeout: 5000,
      },
    );
    expect(heading.textContent).toBe(
      'Batch sent 2026-11-21 19:30 (UTC+09:30), UTC 2026-11-21 10:00',
    );
    const read = requests.find((r) => r.path === '/api/ledger');
    expect(read?.search.get('before')).toBe('13');
    expect(read?.search.get('limit')).toBe('1');
    expect(
      within(screen.getByRole('region', { name: 'Progress' })).getByRole('status').textContent,
    ).toBe('In progress: 0 of 1 device commands are final.');
  });
});
