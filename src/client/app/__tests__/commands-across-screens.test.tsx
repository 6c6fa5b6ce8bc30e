import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import type { Site } from '#domain/device.ts';
import type { LedgerEntry } from '#domain/ledger.ts';
import { batchCommandOf, oneDeviceBatchEntry } from '../../testing/batch-records.ts';
import { fakeCommandBff } from '../../testing/fake-command-bff.ts';
import { renderApp } from '../../testing/render.tsx';
// Loaded before Date is faked: @date-fns/tz's TZDate extends the global Date at load time, and
// the pages that use it are lazy routes.
import '../routes/device.tsx';
import { harbourPlant } from '../../testing/test-devices.ts';
import { fakeDateAt } from '../../testing/fake-date.ts';
import { receivedRecord } from '../../testing/status-records.ts';
import { companySession } from '../../testing/sessions.ts';

const SITE: Site = harbourPlant();
const NOW = '2026-11-21T10:00:00Z';
const DEVICE_PATH = '/sites/PLANT-EU-001/devices/BAT-EU-001-A';
const HISTORY_PATH = `${DEVICE_PATH}/history?range=custom&from=2026-11-21T00:00:00Z&to=2026-11-22T00:00:00Z`;

const received = (id: string, startTime: string, endTime: string): StatusRecord =>
  receivedRecord({
    id,
    deviceId: 'BAT-EU-001-A',
    startTime,
    endTime,
    receivedAt: '2026-11-21T09:00:00Z',
  });

/** The bar of command `id` in the timeline's accessible layer, within `timeoutMs`. */
const timelineBar = (id: string, timeoutMs = 1000) =>
  waitFor(
    () => {
      const cell = document.getElementById(`tl-bar-${id}`);
      if (!cell) throw new Error(`no bar ${id} on the timeline`);
      return cell;
    },
    { timeout: timeoutMs },
  );
// A first visit loads the lazy route, the sites and the slots in view: slow on a loaded machine.
const FIRST_VISIT_MS = 5000;

/** Goes to the timeline on its first visit and opens the details of the first row's first bar, `id`, from the keyboard. */
async function openFirstBarDetails(
  router: { navigate: (to: string) => Promise<void> },
  id: string,
) {
  await router.navigate('/timeline');
  await timelineBar(id, FIRST_VISIT_MS);
  const grid = screen.getByRole('grid', { name: 'Command timeline' });
  fireEvent.keyDown(grid, { key: 'ArrowRight' });
  fireEvent.keyDown(grid, { key: 'Enter' });
  return screen.findByRole('dialog', { name: 'Command details' });
}

/** A batch of one device (Battery A), as the ledger lists it, and the device's command from it. */
const BATCH_WINDOW = batchCommandOf({ targetBatteryPowerW: 1000 });
const BATCH_ENTRY: LedgerEntry = oneDeviceBatchEntry('BAT-EU-001-A', {
  id: '7',
  region: 'eu',
  clientId: 'demo-eu',
  outcome: { status: 202, commands: [{ deviceId: 'BAT-EU-001-A', id: 'cmd_in_batch' }] },
  timeZone: 'Europe/Berlin',
  createdAt: '2026-11-21T09:00:00Z',
});
const BATCH_COMMAND: StatusRecord = {
  ...received('cmd_in_batch', BATCH_WINDOW.startTime, BATCH_WINDOW.endTime),
  batchCommandId: 'batch_1',
};

// One query client across every page of a test, as in the browser: each page reads what the
// others cached, so what a mutation on one page changed must reach the others without a reload.
// The status polls (2 s) and the timeline's live poll (3 s) would catch up on their own; the
// pages must show the change sooner than that, from what the mutation invalidated.

describe('device commands across screens', () => {
  fakeDateAt(NOW);

  it('shows a command submitted on the device page on the timeline and in the history', async () => {
    fakeCommandBff({
      sites: [SITE],
      nowIso: NOW,
      commands: [received('cmd_old', '2026-11-21T16:00:00Z', '2026-11-21T17:00:00Z')],
    });
    const user = userEvent.setup();
    const { router } = renderApp('/timeline');
    await timelineBar('cmd_old', FIRST_VISIT_MS);

    await router.navigate(DEVICE_PATH);
    await user.type(await screen.findByLabelText('Target battery power (W)'), '-3000');
    await user.click(screen.getByRole('button', { name: 'Submit command' }));
    expect(await screen.findByText('Command submitted: cmd_1')).toBeTruthy();

    await router.navigate('/timeline');
    const bar = await timelineBar('cmd_1');
    expect(bar.textContent).toBe(
      'Battery A: 3 kW charge, Sat 21 Nov 11:10–12:10 Europe/Berlin, Received (pending)',
    );

    await router.navigate(HISTORY_PATH);
    await screen.findByRole('heading', { level: 1, name: /Command history of/ }, { timeout: 5000 });
    const row = await screen.findByRole('row', { name: /cmd_1/ });
    expect(row.textContent).toContain('Received');
  });

  it('shows a cancel made on the timeline on the device page, and one made there on the timeline', async () => {
    fakeCommandBff({
      sites: [SITE],
      nowIso: NOW,
      commands: [
        received('cmd_early', '2026-11-21T11:00:00Z', '2026-11-21T12:00:00Z'),
        received('cmd_late', '2026-11-21T14:00:00Z', '2026-11-21T15:00:00Z'),
      ],
    });
    const user = userEvent.setup();
    const { router } = renderApp(DEVICE_PATH);
    const early = await screen.findByRole('row', { name: /cmd_early/ });
    expect(within(early).getByText('received')).toBeTruthy();

    const details = await openFirstBarDetails(router, 'cmd_early');
    await user.click(within(details).getByRole('button', { name: 'Cancel command' }));
    await user.click(
      within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Cancel command' }),
    );
    expect(await screen.findByText('Command cmd_early cancelled.')).toBeTruthy();

    await router.navigate(DEVICE_PATH);
    await screen.findByRole('heading', { level: 1, name: /BAT-EU-001-A/ });
    const earlyAgain = await screen.findByRole('row', { name: /cmd_early/ });
    await waitFor(() => expect(within(earlyAgain).getByText('cancelled')).toBeTruthy());
    expect(earlyAgain.textContent).toContain('Cancelled by an operator');

    const late = screen.getByRole('row', { name: /cmd_late/ });
    await user.click(within(late).getByRole('button', { name: 'Cancel' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel command' }));
    await waitFor(() => expect(within(late).getByText('cancelled')).toBeTruthy());

    await router.navigate('/timeline');
    await waitFor(async () =>
      expect((await timelineBar('cmd_late')).getAttribute('data-status')).toBe('cancelled'),
    );
  });

  it('shows a batch cancelled on its page on the device page', async () => {
    fakeCommandBff({
      sites: [SITE],
      nowIso: NOW,
      ledger: [BATCH_ENTRY],
      commands: [BATCH_COMMAND],
    });
    const user = userEvent.setup();
    const { router } = renderApp(DEVICE_PATH);
    const row = await screen.findByRole('row', { name: /cmd_in_batch/ });
    expect(within(row).getByText('received')).toBeTruthy();

    await router.navigate('/batches/batch_1');
    await user.click(await screen.findByRole('button', { name: 'Cancel batch' }));
    await user.click(
      within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Cancel batch' }),
    );
    expect(
      await screen.findByText('All 1 device commands were cancelled.', {}, { timeout: 5000 }),
    ).toBeTruthy();

    await router.navigate(DEVICE_PATH);
    await screen.findByRole('heading', { level: 1, name: /BAT-EU-001-A/ });
    const rowAgain = await screen.findByRole('row', { name: /cmd_in_batch/ });
    await waitFor(() => expect(within(rowAgain).getByText('cancelled')).toBeTruthy());
  });

  it('shows a viewer every command but no button that changes one, and says why', async () => {
    fakeCommandBff({
      sites: [SITE],
      nowIso: NOW,
      ledger: [BATCH_ENTRY],
      commands: [BATCH_COMMAND],
      session: companySession('viewer', 'Vera Viewer'),
    });
    const why = /You are signed in as a viewer; only a dispatcher or an administrator may/;
    const { router } = renderApp(DEVICE_PATH);
    const row = await screen.findByRole('row', { name: /cmd_in_batch/ });
    expect(within(row).getByText('received')).toBeTruthy();
    expect(within(row).queryByRole('button')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Submit command' })).toBeNull();
    expect(screen.getByText(why)).toBeTruthy();

    const details = await openFirstBarDetails(router, 'cmd_in_batch');
    expect(within(details).getByText('cmd_in_batch')).toBeTruthy();
    expect(within(details).queryByRole('button', { name: /Cancel command|Change/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /^New command/ })).toBeNull();

    await router.navigate('/batches/batch_1?confirm=cancel');
    await screen.findByRole('heading', { level: 1, name: /Batch batch_1/ });
    expect(await screen.findByRole('row', { name: /BAT-EU-001-A/ })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel batch' })).toBeNull();
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(screen.getByText(why)).toBeTruthy();

    await router.navigate('/batches/new');
    expect(await screen.findByText(why)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Submit batch/ })).toBeNull();
  });
});
