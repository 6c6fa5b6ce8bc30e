import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Papa from 'papaparse';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LedgerEntry } from '#domain/ledger.ts';
import { batchCommandOf, batchStatusOf } from '../../testing/batch-records.ts';
import { installDesignTokens } from '../../testing/design-tokens.ts';
import { stubElementWidth } from '../../testing/element-width.ts';
import { json, problem, stubFetch } from '../../testing/fake-fetch.ts';
import { sentFleetBatch, testFleetJob } from '../../testing/fleet-jobs.ts';
import { renderApp } from '../../testing/render.tsx';
import { eventVerdictsAnswer } from '../../testing/verdict-records.ts';
// Loaded ahead: the lazy routes transform on first use, which a loaded machine makes slow.
import '../routes/batch-detail.tsx';
import '../routes/fleet-jobs.tsx';

const COMMAND = batchCommandOf({ targetBatteryPowerW: 5000 });
const DEVICES = ['BAT-1', 'BAT-2', 'BAT-3'];
const BATCH: LedgerEntry = {
  id: '10',
  kind: 'batch',
  state: 'succeeded',
  region: 'eu',
  clientId: 'demo-eu',
  batchCommandId: 'batch_1',
  deviceIds: DEVICES,
  request: { devices: DEVICES, command: COMMAND },
  outcome: {
    status: 202,
    commands: DEVICES.map((deviceId, index) => ({ deviceId, id: `cmd_${index + 1}` })),
    confirmation: 'confirmed',
    unconfirmed: [],
  },
  timeZone: 'Europe/Berlin',
  createdAt: '2026-11-21T10:00:00Z',
};
const completed = batchStatusOf(COMMAND, 'completed');
// A job whose window has ended: its first batch sent to the three devices.
const JOB = testFleetJob({
  state: 'completed',
  command: COMMAND,
  batches: [
    sentFleetBatch(
      DEVICES.map((deviceId, index) => ({
        deviceId,
        commandId: `cmd_${index + 1}`,
        status: 'completed' as const,
      })),
    ),
  ],
});

/** A signed-in BFF holding the batch, the job, their device commands and their verdicts. */
function fakeBff() {
  return stubFetch((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session') return json(200, { region: 'eu', clientId: 'demo-eu' });
    if (route === 'GET /api/sites') return json(200, { sites: [] });
    if (route === 'GET /api/ledger')
      return json(200, { entries: request.search.get('kind') === 'batch' ? [BATCH] : [] });
    const status = /^GET \/api\/devices\/(BAT-\d)\/commands\/(cmd_\d)$/.exec(route);
    if (status?.[1] && status[2]) return json(200, completed(status[1], status[2]));
    if (route === 'GET /api/batches/batch_1/verdicts') return json(200, eventVerdictsAnswer());
    if (route === `GET /api/fleet-jobs/${JOB.jobId}`) return json(200, JOB);
    if (route === `GET /api/fleet-jobs/${JOB.jobId}/verdicts`)
      return json(200, eventVerdictsAnswer());
    return problem(404, 'not_found', `no route ${route}`);
  });
}

/** The rows of the CSV the page offers for download, read from the file it makes. */
async function downloadedCsv(buttonName: string): Promise<string[][]> {
  let file: Blob | undefined;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    file = blob as Blob;
    return 'blob:csv';
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
  await userEvent.click(screen.getByRole('button', { name: buttonName }));
  await waitFor(() => expect(file).toBeDefined());
  return Papa.parse<string[]>((await file?.text()) ?? '', { skipEmptyLines: true }).data;
}

let removeTokens = () => {};
beforeEach(() => {
  removeTokens = installDesignTokens();
  stubElementWidth(1000);
});
afterEach(() => {
  removeTokens();
  vi.restoreAllMocks();
});

describe('the delivery of a batch whose window has ended', () => {
  it('shows the big figure and the counts, each device verdict in its row and in the CSV', async () => {
    fakeBff();
    renderApp('/batches/batch_1');
    const delivery = await screen.findByRole('region', { name: 'Delivery' }, { timeout: 5000 });
    expect(await within(delivery).findByText('Delivered 5.15 of 10 kWh (52%)')).toBeTruthy();
    expect(within(delivery).getByText(/1 device waiting for its verdict/)).toBeTruthy();

    const table = screen.getByRole('table', { name: 'Device commands of the batch' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Selected', 'Device', 'Command', 'Status', 'Reason', 'Verdict']);
    const row = (deviceId: string) =>
      within(table).getByRole('row', { name: new RegExp(deviceId) });
    await waitFor(() => expect(row('BAT-1').textContent).toContain('Delivered4.9 kWh discharged'));
    expect(row('BAT-2').textContent).toContain('Not following0.25 kWh discharged');
    expect(row('BAT-3').textContent).toContain('No verdict yet');

    const csv = await downloadedCsv('Download devices (CSV)');
    expect(csv[0]?.slice(4)).toEqual([
      'Verdict',
      'Delivered (kWh, discharge positive)',
      'Commanded (kWh, discharge positive)',
      'Share measured',
      'Last cancel',
    ]);
    expect(csv.slice(1).map((line) => [line[0], ...line.slice(4, 8)])).toEqual([
      ['BAT-1', 'Delivered', '4.9', '5', '100%'],
      ['BAT-2', 'Not following', '0.25', '5', '80%'],
      ['BAT-3', 'No verdict yet', '', '', ''],
    ]);
  });
});

describe('the delivery of a fleet job whose window has ended', () => {
  it("shows the big figure, each device's verdict under its batch and in the CSV", async () => {
    fakeBff();
    renderApp(`/fleet-jobs/${JOB.jobId}`);
    const delivery = await screen.findByRole('region', { name: 'Delivery' }, { timeout: 5000 });
    expect(await within(delivery).findByText('Delivered 5.15 of 10 kWh (52%)')).toBeTruthy();
    expect(
      within(delivery).getByRole('list', {
        name: "Verdicts of the fleet job's devices: 2 devices",
      }),
    ).toBeTruthy();

    const batches = screen.getByRole('region', { name: 'Batches' });
    const lines = within(batches)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(lines[0]).toContain('Delivered4.9 kWh discharged of 5 kWh commanded (98%)');
    expect(lines[2]).toContain('No verdict yet');

    const csv = await downloadedCsv('Download outcomes (CSV)');
    expect(csv.slice(1).map((line) => [line[2], ...line.slice(-4)])).toEqual([
      ['BAT-1', 'Delivered', '4.9', '5', '100%'],
      ['BAT-2', 'Not following', '0.25', '5', '80%'],
      ['BAT-3', 'No verdict yet', '', '', ''],
    ]);
  });
});
