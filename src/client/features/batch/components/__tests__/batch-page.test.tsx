import { screen, within } from '@testing-library/react';
import type { QueryClient } from '@tanstack/react-query';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import type { UnboundDevice } from '#domain/batch.ts';
import type { LedgerEntry } from '#domain/ledger.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { batchCommandOf, batchStatusOf, threeDeviceBatch } from '#client/testing/batch-records.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import type { BatchRecord } from '../../lib/ledger-batches.ts';
import { BatchPage } from '../batch-page.tsx';
import { invalidationsOf } from '#client/app/push-updates.ts';

const command = batchCommandOf({ targetBatteryPowerW: -2000 });
const record = threeDeviceBatch(command);
const status = batchStatusOf(command, 'cancelled');
const statuses: Record<string, StatusRecord> = {
  cmd_1: status('BAT-1', 'cmd_1', { cancelReason: 'manuallyCancel' }),
  cmd_2: status('BAT-2', 'cmd_2', { status: 'completed' }),
  cmd_3: status('BAT-3', 'cmd_3', { cancelReason: 'timeWindowOverlap' }),
};
const cancelEntry = (overrides: Partial<LedgerEntry>): LedgerEntry => ({
  id: '12',
  kind: 'batchCancel',
  state: 'succeeded',
  region: 'eu',
  clientId: 'demo-eu',
  operatorName: 'Olga Operator',
  batchCommandId: 'batch_1',
  createdAt: '2026-11-21T10:30:00Z',
  outcome: {
    status: 200,
    results: [
      { deviceId: 'BAT-1', commandId: 'cmd_1', success: true, status: 'cancelled' },
      { deviceId: 'BAT-2', commandId: 'cmd_2', success: false, status: 'completed' },
      { deviceId: 'BAT-3', commandId: 'cmd_3', success: false, status: 'cancelled' },
    ],
  },
  ...overrides,
});

function fakeBff(entries: LedgerEntry[]) {
  return stubFetch((request) => {
    if (request.path === '/api/ledger') return json(200, { entries });
    const id = /^\/api\/devices\/[\w-]+\/commands\/([\w-]+)$/.exec(request.path)?.[1];
    const found = id ? statuses[id] : undefined;
    return found ? json(200, found) : problem(404, 'not_found', `no route ${request.path}`);
  });
}

describe('BatchPage, opened after a batch cancel', () => {
  it("shows the ledger's latest cancel: when, who, successes and failures side by side", async () => {
    const requests = fakeBff([
      cancelEntry({ id: '14', state: 'failed', createdAt: '2026-11-21T10:40:00Z', outcome: {} }),
      cancelEntry({}),
      cancelEntry({ id: '9', operatorName: 'Earlier Eve', createdAt: '2026-11-21T10:20:00Z' }),
    ]);
    renderWithProviders(<BatchPage record={record} />);

    const results = await screen.findByRole('region', { name: 'Batch cancel results' });
    expect(results.textContent).toContain(
      'Last batch cancel, sent 2026-11-21 11:30 (Europe/Berlin) by Olga Operator.',
    );
    expect(within(results).getByRole('status').textContent).toBe(
      'Partly cancelled: 1 of 3 device commands cancelled, 2 not cancelled.',
    );
    const cancelled = within(results).getByRole('list', { name: 'Cancelled devices' });
    expect(
      within(cancelled)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['BAT-1: cancelled']);
    const failed = within(results).getByRole('list', { name: 'Devices not cancelled' });
    expect(within(failed).getByText(/BAT-2/).closest('li')?.textContent).toContain(
      'It had already completed',
    );
    expect(await within(failed).findByText(/its window overlapped another command/)).toBeTruthy();
    expect(within(results).queryByRole('button', { name: /Retry cancel/ })).toBeNull();
    expect(results.textContent).not.toContain('Earlier Eve');

    const ledger = requests.find((r) => r.path === '/api/ledger');
    expect(ledger?.search.get('kind')).toBe('batchCancel');
    expect(ledger?.search.get('batchCommandId')).toBe('batch_1');
  });

  it('shows no cancel results when the batch was never cancelled', async () => {
    fakeBff([]);
    renderWithProviders(<BatchPage record={record} />);
    expect(await screen.findByRole('row', { name: /BAT-3/ })).toBeTruthy();
    await screen.findAllByText('Cancelled');
    expect(screen.queryByRole('region', { name: 'Batch cancel results' })).toBeNull();
  });
});

describe('BatchPage times', () => {
  it('shows the times on the site clock the ledger recorded', async () => {
    fakeBff([]);
    renderWithProviders(<BatchPage record={record} />);
    expect(screen.getByText('Submitted').nextElementSibling?.textContent).toBe(
      '2026-11-21 11:00 (Europe/Berlin), UTC 2026-11-21 10:00',
    );
    expect(screen.queryByText(/Times on this page are in UTC/)).toBeNull();
    await screen.findAllByText('Cancelled');
  });

  it('shows the times in UTC and says so when the ledger recorded no site time zone', async () => {
    fakeBff([]);
    renderWithProviders(
      <BatchPage record={{ ...record, timeZone: 'UTC', timeZoneRecorded: false }} />,
    );
    expect(await screen.findByText(/Times on this page are in UTC/)).toBeTruthy();
    // UTC is said once, not as the site clock and again beside it.
    expect(screen.getByText('Submitted').nextElementSibling?.textContent).toBe(
      'UTC 2026-11-21 10:00',
    );
    expect(screen.getByText('Effective window').nextElementSibling?.textContent).toMatch(
      /^UTC 2026-11-2\d \d\d:\d\d–\d\d:\d\d$/,
    );
  });
});

describe('BatchPage, opened to cancel the batch', () => {
  it('asks to confirm the batch cancel at once, and says it asked', async () => {
    fakeBff([]);
    const asked = vi.fn();
    renderWithProviders(<BatchPage record={record} askCancel onCancelAsked={asked} />);
    expect(await screen.findByRole('alertdialog', { name: 'Cancel batch batch_1?' })).toBeTruthy();
    expect(asked).toHaveBeenCalled();
  });
});

describe('BatchPage, with a device whose site was unbound', () => {
  it('ends that device as no longer followed, counted final: the batch is finished, not in progress', async () => {
    const waiting = status('BAT-2', 'cmd_2', { status: 'received' });
    const requests = stubFetch((request) => {
      if (request.path === '/api/ledger') return json(200, { entries: [] });
      if (request.path === '/api/devices/BAT-1/commands/cmd_1') return json(200, statuses.cmd_1);
      if (request.path === '/api/devices/BAT-2/commands/cmd_2') return json(200, waiting);
      if (request.path === '/api/devices/BAT-3/commands/cmd_3') return json(200, statuses.cmd_3);
      return problem(404, 'not_found', `no route ${request.path}`);
    });
    const unboundRecord = { ...record, unbound: [{ deviceId: 'BAT-2', lastStatus: 'received' }] };
    renderWithProviders(<BatchPage record={unboundRecord as BatchRecord} />);

    expect(
      await screen.findByText(
        'Finished with cancellations: 0 of 3 completed, 2 cancelled, 1 no longer followed (site unbound).',
      ),
    ).toBeTruthy();
    const row = document.querySelector('tr[data-device="BAT-2"]') as HTMLElement;
    expect(row.textContent).toContain('Site unbound: no longer followed');
    expect(row.textContent).toContain('Last read: Received (pending).');
    expect(screen.getByRole('progressbar').getAttribute('aria-valuetext')).toBe('3 of 3 final');
    // Its status is read no more: powerdeck follows it no more.
    expect(requests.some((r) => r.path.includes('/BAT-2/'))).toBe(false);
  });
});

describe('BatchPage, with a device whose command ended before its site was unbound', () => {
  const fakeUnbound = () =>
    stubFetch((request) => {
      if (request.path === '/api/ledger') return json(200, { entries: [] });
      if (request.path === '/api/devices/BAT-1/commands/cmd_1') return json(200, statuses.cmd_1);
      if (request.path === '/api/devices/BAT-3/commands/cmd_3') return json(200, statuses.cmd_3);
      // What the BFF answers of a device whose site is unbound.
      return problem(404, 'unknown_or_unbound', 'Unknown device or command, or site unbound.');
    });
  /** The page with BAT-2's site unbound since, as `bat2` was last read; the requests it made. */
  const renderUnbound = (bat2: Omit<UnboundDevice, 'deviceId'>) => {
    const requests = fakeUnbound();
    renderWithProviders(
      <BatchPage record={{ ...record, unbound: [{ deviceId: 'BAT-2', ...bat2 }] }} />,
    );
    return requests;
  };

  it('shows it completed, its site unbound since, counted final; its status is never read', async () => {
    const requests = renderUnbound({ lastStatus: 'completed' });

    expect(
      await screen.findByText('Finished with cancellations: 1 of 3 completed, 2 cancelled.'),
    ).toBeTruthy();
    const row = document.querySelector('tr[data-device="BAT-2"]') as HTMLElement;
    expect(row.textContent).toContain('Completed');
    expect(row.textContent).toContain('Its site was unbound since');
    expect(row.textContent).not.toContain('no longer followed');
    expect(row.textContent).not.toContain('Could not read its status');
    expect(screen.getByRole('progressbar').getAttribute('aria-valuetext')).toBe('3 of 3 final');
    expect(requests.some((r) => r.path.includes('/BAT-2/'))).toBe(false);
  });

  it('shows it cancelled with its reason, its site unbound since', async () => {
    const requests = renderUnbound({ lastStatus: 'cancelled', lastCancelReason: 'deviceFault' });

    expect(
      await screen.findByText('Finished with cancellations: 0 of 3 completed, 3 cancelled.'),
    ).toBeTruthy();
    const row = document.querySelector('tr[data-device="BAT-2"]') as HTMLElement;
    expect(row.textContent).toContain('Cancelled');
    expect(row.textContent).toContain('A device fault prevented or stopped execution');
    expect(row.textContent).toContain('Its site was unbound since');
    expect(requests.some((r) => r.path.includes('/BAT-2/'))).toBe(false);
  });
});

describe('BatchPage, when its batch cancel is queued', () => {
  const GOES_AT = '2026-11-21T10:31:20Z';
  const queuedChange = {
    id: 'chg_c',
    kind: 'batchCancel',
    state: 'queued',
    deviceIds: record.deviceIds,
    steps: [
      {
        call: 'batchCancel',
        batchCommandId: 'batch_1',
        deviceIds: record.deviceIds,
        state: 'waiting',
        plannedAt: GOES_AT,
      },
    ],
    goesAt: GOES_AT,
    createdAt: '2026-11-21T10:30:40Z',
    updatedAt: '2026-11-21T10:30:40Z',
  };

  /** A BFF whose batch's commands wait, that queues the batch cancel as change `chg_c`. */
  function fakeQueuingBff(change: () => object) {
    return stubFetch((request) => {
      if (request.path === '/api/ledger') return json(200, { entries: [] });
      if (request.method === 'PUT' && request.path === '/api/batches/batch_1/cancel')
        return json(202, {
          queued: {
            changeId: 'chg_c',
            goesAt: GOES_AT,
            reason: 'no_slot',
            deviceIds: record.deviceIds,
          },
        });
      if (request.path === '/api/changes/chg_c') return json(200, change());
      const id = /^\/api\/devices\/[\w-]+\/commands\/([\w-]+)$/.exec(request.path)?.[1];
      const found = id ? statuses[id] : undefined;
      return found
        ? json(200, { ...found, status: 'received', cancelReason: undefined })
        : problem(404, 'not_found', `no route ${request.path}`);
    });
  }

  /** Renders the page and cancels the batch through its dialog; the page's query client. */
  async function cancelTheBatch() {
    const user = userEvent.setup();
    const { queryClient } = renderWithProviders(<BatchPage record={record} />);
    const cancel = await screen.findByRole('button', { name: 'Cancel batch' });
    await vi.waitFor(() => expect((cancel as HTMLButtonElement).disabled).toBe(false));
    await user.click(cancel);
    const dialog = await screen.findByRole('alertdialog', { name: 'Cancel batch batch_1?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel batch' }));
    return queryClient;
  }

  /** What the push stream's event of the queued cancel's new `state` invalidates, invalidated. */
  async function pushChangeState(
    queryClient: QueryClient,
    id: string,
    state: string,
    createdAt: string,
  ) {
    for (const filters of invalidationsOf({
      id,
      type: 'queuedChangeChanged',
      data: { changeId: 'chg_c', state, deviceIds: record.deviceIds },
      createdAt,
    }))
      await queryClient.invalidateQueries(filters);
  }

  it('follows it: "not sent yet" gives way to sent once it went, with when', async () => {
    let change: object = queuedChange;
    fakeQueuingBff(() => change);
    const queryClient = await cancelTheBatch();
    await vi.waitFor(() =>
      expect(
        screen.getByText(/^The batch cancel is not sent yet\. Queued: it goes at/),
      ).toBeTruthy(),
    );

    change = {
      ...queuedChange,
      state: 'sent',
      goesAt: undefined,
      steps: [{ ...queuedChange.steps[0], state: 'sent', sentAt: GOES_AT }],
    };
    await pushChangeState(queryClient, '9', 'sent', '2026-11-21T10:31:21Z');
    await vi.waitFor(() =>
      expect(
        screen.getByText(
          /^Batch cancel sent at 2026-11-21 11:31 \(Europe\/Berlin\).*after waiting for the device's next free call\.$/,
        ),
      ).toBeTruthy(),
    );
    expect(screen.queryByText(/not sent yet/)).toBeNull();
  });

  it('follows it: says it was withdrawn, not sent, once an operator withdrew it', async () => {
    let change: object = queuedChange;
    fakeQueuingBff(() => change);
    const queryClient = await cancelTheBatch();
    await screen.findByText(/^The batch cancel is not sent yet\./);

    change = {
      ...queuedChange,
      state: 'withdrawn',
      goesAt: undefined,
    };
    await pushChangeState(queryClient, '10', 'withdrawn', '2026-11-21T10:31:00Z');
    await vi.waitFor(() =>
      expect(
        screen.getByText('Batch cancel not sent. It was withdrawn before it was sent.'),
      ).toBeTruthy(),
    );
  });
});
