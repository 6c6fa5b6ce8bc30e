import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { batchCommandOf, batchStatusOf, threeDeviceBatch } from '#client/testing/batch-records.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { BatchPage } from '../batch-page.tsx';

const command = batchCommandOf({ targetBatteryPowerW: 3000 });
const record = threeDeviceBatch(command);
const status = batchStatusOf(command, 'executing');
const statuses: Record<string, StatusRecord> = {
  cmd_1: status('BAT-1', 'cmd_1', {}),
  cmd_2: status('BAT-2', 'cmd_2', { status: 'received' }),
  cmd_3: status('BAT-3', 'cmd_3', { status: 'cancelled', cancelReason: 'timeWindowOverlap' }),
};

/** A fake BFF: BAT-1's cancel is done, BAT-2's refused (it completed meanwhile). */
function fakeBff() {
  return stubFetch((request) => {
    if (request.path === '/api/ledger') return json(200, { entries: [] });
    const cancel = /^\/api\/devices\/([\w-]+)\/commands\/([\w-]+)\/cancel$/.exec(request.path);
    if (cancel?.[2] === 'cmd_1')
      return json(200, {
        deviceId: 'BAT-1',
        commandId: 'cmd_1',
        status: 'cancelled',
        cancelledAt: '2026-11-21T11:10:00Z',
        cancelReason: 'manuallyCancel',
      });
    if (cancel) return problem(409, 'not_cancellable', 'The command has already completed.');
    const id = /^\/api\/devices\/[\w-]+\/commands\/([\w-]+)$/.exec(request.path)?.[1];
    const found = id ? statuses[id] : undefined;
    return found ? json(200, found) : problem(404, 'not_found', 'No such command.');
  });
}

const row = (deviceId: string) => screen.getByRole('row', { name: new RegExp(deviceId) });

describe('BatchPage, chosen devices', () => {
  it('cancels the chosen devices one by one, after a confirmation naming them, each with its outcome', async () => {
    const user = userEvent.setup();
    const requests = fakeBff();
    renderWithProviders(<BatchPage record={record} />);
    await screen.findByText('Its window overlapped another command of the same device');

    const counter = screen.getByText(/devices selected$/);
    expect(counter.textContent).toBe('0 of 3 devices selected');
    expect(screen.getByRole('button', { name: 'Cancel selected (0)…' })).toHaveProperty(
      'disabled',
      true,
    );
    await user.click(screen.getByRole('button', { name: 'Select all (3)' }));
    expect(counter.textContent).toBe('3 of 3 devices selected');
    await user.click(screen.getByRole('button', { name: 'Select none' }));
    expect(counter.textContent).toBe('0 of 3 devices selected');
    // Keyboard: Space on a row's checkbox chooses it.
    screen.getByRole('checkbox', { name: 'Select BAT-1' }).focus();
    await user.keyboard(' ');
    await user.click(screen.getByRole('checkbox', { name: 'Select BAT-2' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select BAT-3' }));
    expect(counter.textContent).toBe('3 of 3 devices selected');

    await user.click(screen.getByRole('button', { name: 'Cancel selected (2)…' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Cancel 2 device commands?' });
    expect(dialog.textContent).toContain('BAT-1, BAT-2');
    expect(dialog.textContent).toContain(
      'Left as they are: BAT-3 (its command is already cancelled)',
    );
    expect(dialog.textContent).toContain('a cancel cannot be undone');
    expect(dialog.textContent).not.toMatch(/\bUndo\b/);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel 2 device commands' }));

    const outcome = await screen.findByText(
      '1 of 2 selected device commands cancelled, 1 not cancelled: each row says why.',
    );
    expect(document.activeElement).toBe(outcome);
    expect(row('BAT-1').textContent).toContain('Cancelled');
    expect(row('BAT-2').textContent).toContain('Not cancelled:');
    expect(row('BAT-3').textContent).not.toContain('Not cancelled');
    const cancels = requests.filter((r) => r.method === 'PUT').map((r) => r.path);
    expect(cancels).toEqual([
      '/api/devices/BAT-1/commands/cmd_1/cancel',
      '/api/devices/BAT-2/commands/cmd_2/cancel',
    ]);
    // Each cancel is its own intent.
    const keys = requests
      .filter((r) => r.method === 'PUT')
      .map((r) => r.headers.get('Idempotency-Key'));
    expect(new Set(keys).size).toBe(2);
  });

  it('resends to the chosen failed devices only, handing them and the command on', async () => {
    const user = userEvent.setup();
    fakeBff();
    const onResend = vi.fn();
    renderWithProviders(
      <BatchPage
        record={record}
        onResend={onResend}
        devicePathOf={(id) => `/sites/PLANT-1/devices/${id}`}
        historyPathOf={(id) => `/sites/PLANT-1/devices/${id}/history`}
      />,
    );
    await screen.findByText('Its window overlapped another command of the same device');
    expect(within(row('BAT-3')).getByRole('link', { name: 'BAT-3' })).toHaveProperty(
      'href',
      expect.stringContaining('/sites/PLANT-1/devices/BAT-3'),
    );
    expect(within(row('BAT-3')).getByRole('link', { name: 'History of BAT-3' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Select all (3)' }));
    await user.click(screen.getByRole('button', { name: 'Resend to selected failed (1)…' }));
    expect(onResend).toHaveBeenCalledWith(['BAT-3'], command);
    await user.click(screen.getByRole('button', { name: 'Select none' }));
    await user.click(screen.getByRole('button', { name: 'Select failed (1)' }));
    expect(screen.getByRole('checkbox', { name: 'Select BAT-3' })).toHaveProperty('checked', true);
    expect(screen.getByRole('checkbox', { name: 'Select BAT-1' })).toHaveProperty('checked', false);
  });
});
