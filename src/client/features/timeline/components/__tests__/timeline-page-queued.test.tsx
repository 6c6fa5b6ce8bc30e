import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import { invalidationsOf } from '#client/app/push-updates.ts';
import { fakeCommandBff } from '#client/testing/fake-command-bff.ts';
import { renderApp } from '#client/testing/render.tsx';
import { submitFirstRowCommand } from '#client/testing/timeline-steps.ts';
import { BATTERY_A, harbourPlant } from '#client/testing/test-devices.ts';
// Loaded before Date is faked: @date-fns/tz's TZDate extends the global Date at load time.
import '../timeline-page.tsx';
import { fakeDateAt } from '#client/testing/fake-date.ts';

const NOW = '2026-11-21T10:00:00Z';
const DEVICE = 'BAT-EU-001-A';
/** A submission to Battery A waiting for the device's next call, at 10:00:40 UTC. */
const QUEUED_SUBMIT: QueuedChangeStatus = {
  id: 'chg_1',
  kind: 'submit',
  state: 'queued',
  deviceIds: [DEVICE],
  steps: [
    {
      call: 'submit',
      deviceIds: [DEVICE],
      state: 'waiting',
      plannedAt: '2026-11-21T10:00:40Z',
      command: {
        powerControl: { targetBatteryPowerW: 1000 },
        startTime: '2026-11-21T13:00:00Z',
        endTime: '2026-11-21T14:00:00Z',
      },
    },
  ],
  goesAt: '2026-11-21T10:00:40Z',
  createdAt: NOW,
  updatedAt: NOW,
};
const CELL_ID = `tl-bar-ghost-queued-chg_1-${DEVICE}`;

describe('the timeline page and queued changes', () => {
  fakeDateAt(NOW);

  it('draws a queued submission on its row until it is withdrawn from its menu, after a confirmation', async () => {
    const { requests } = fakeCommandBff({
      sites: [harbourPlant()],
      nowIso: NOW,
      changes: [QUEUED_SUBMIT],
    });
    const user = userEvent.setup();
    renderApp('/timeline');
    const cell = await waitFor(
      () => {
        const found = document.getElementById(CELL_ID);
        if (!found) throw new Error('no queued window on the timeline');
        return found;
      },
      { timeout: 5000 },
    );
    expect(cell.textContent).toMatch(
      /^Battery A: queued change, not sent yet, 1 kW discharge, Sat 21 Nov 14:00–15:00 Europe\/Berlin, goes at 11:00:40 site time \(10:00:40 UTC\)/,
    );

    const grid = screen.getByRole('grid', { name: 'Command timeline' });
    act(() => grid.focus());
    await user.keyboard('{ArrowRight}');
    expect(grid.getAttribute('aria-activedescendant')).toBe(CELL_ID);
    await user.keyboard('{Shift>}{F10}{/Shift}');
    const menu = await screen.findByRole('menu');
    expect(within(menu).getByRole('menuitem', { name: 'Open queued changes' })).toBeTruthy();
    await user.click(within(menu).getByRole('menuitem', { name: 'Withdraw…' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Withdraw this queued change?' });
    expect(dialog.textContent).toContain(
      'New command: send 1 kW discharge, 2026-11-21 14:00–15:00 (Europe/Berlin)',
    );
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Withdraw change' }));

    expect(
      await screen.findByText('Withdrawn on Battery A: nothing of that change was sent.'),
    ).toBeTruthy();
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      '/api/changes/chg_1',
    ]);
    await waitFor(() => expect(document.getElementById(CELL_ID)).toBeNull());
  });

  it('marks a command whose cancel is queued: it may not be replaced, and its menu withdraws the cancel', async () => {
    const cancel: QueuedChangeStatus = {
      ...QUEUED_SUBMIT,
      id: 'chg_2',
      kind: 'cancel',
      steps: [
        {
          call: 'cancel',
          deviceIds: [DEVICE],
          state: 'waiting',
          plannedAt: '2026-11-21T10:00:40Z',
          commandId: 'cmd_9',
        },
      ],
    };
    fakeCommandBff({
      sites: [harbourPlant()],
      nowIso: NOW,
      commands: [
        {
          id: 'cmd_9',
          deviceId: DEVICE,
          powerControl: { targetBatteryPowerW: 1000 },
          startTime: '2026-11-21T13:00:00Z',
          endTime: '2026-11-21T14:00:00Z',
          status: 'received',
          receivedAt: NOW,
        },
      ],
      changes: [cancel],
    });
    const user = userEvent.setup();
    renderApp('/timeline');
    await waitFor(
      () =>
        expect(document.getElementById('tl-bar-cmd_9')?.textContent).toMatch(
          /Received \(pending\), cancel queued, goes at 11:00:40 site time \(10:00:40 UTC\)$/,
        ),
      { timeout: 5000 },
    );
    const grid = screen.getByRole('grid', { name: 'Command timeline' });
    act(() => grid.focus());
    await user.keyboard('{ArrowRight}');
    await user.keyboard(' ');
    expect(
      await screen.findByText(
        /^Command cmd_9 is being cancelled: its cancel is queued and goes at 11:00:40\. Withdraw the cancel/,
      ),
    ).toBeTruthy();
    await user.keyboard('{Shift>}{F10}{/Shift}');
    const menu = await screen.findByRole('menu');
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual([
      'Copy window (Ctrl+C)',
      'Withdraw queued cancel…',
      'Open queued changes',
      'Open history',
    ]);
  });

  it("follows a submission it queued: the toolbar's line says refused, with the reason, once the vendor refused it", async () => {
    vi.useRealTimers();
    const bff = fakeCommandBff({
      sites: [harbourPlant()],
      nowIso: new Date().toISOString(),
      queueSubmissions: true,
    });
    const user = userEvent.setup();
    const { queryClient } = renderApp('/timeline');
    await submitFirstRowCommand(user);
    const line = await screen.findByText(
      /^Command for Battery A not sent yet\. Queued: it goes at/,
    );

    const reason =
      'The window overlaps another command of BAT-EU-001-A, which is waiting or running. Cancel that command first, or choose a window that does not overlap it (windows may touch).';
    Object.assign(bff.changes[0] ?? {}, {
      state: 'failed',
      goesAt: undefined,
      outcome: { failure: 'refused', detail: reason },
    });
    // The BFF pushes the change's new state; the stream makes its queries stale.
    for (const filters of invalidationsOf({
      id: '3',
      type: 'queuedChangeChanged',
      data: { changeId: 'chg_1', state: 'failed', deviceIds: [DEVICE] },
      createdAt: new Date().toISOString(),
    }))
      await queryClient.invalidateQueries(filters);
    await waitFor(() =>
      expect(line.textContent).toBe(
        `Command for Battery A refused by the vendor when it went. ${reason}`,
      ),
    );
  });

  it('follows each copy it queued: the notice says one sent and the other refused, with the reason, once they went', async () => {
    vi.useRealTimers();
    const nowMs = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const bff = fakeCommandBff({
      sites: [
        harbourPlant([BATTERY_A, { ...BATTERY_A, deviceId: 'BAT-EU-001-B', name: 'Battery B' }]),
      ],
      nowIso: new Date(nowMs).toISOString(),
      commands: [
        {
          id: 'cmd_1',
          deviceId: DEVICE,
          powerControl: { targetBatteryPowerW: 1000 },
          startTime: iso(Math.ceil(nowMs / 3_600_000) * 3_600_000 + 3_600_000),
          endTime: iso(Math.ceil(nowMs / 3_600_000) * 3_600_000 + 7_200_000),
          status: 'received',
          receivedAt: new Date(nowMs).toISOString(),
        },
      ],
      queueSubmissions: true,
    });
    const user = userEvent.setup();
    const { queryClient } = renderApp('/timeline');
    const grid = await screen.findByRole('grid', { name: 'Command timeline' });
    await waitFor(
      () => {
        if (!document.querySelector('[id^="tl-bar-"][id*="cmd_1"]')) throw new Error('no bar yet');
      },
      { timeout: 5000 },
    );
    const active = () =>
      document.getElementById(grid.getAttribute('aria-activedescendant') ?? '')?.textContent;
    act(() => grid.focus());
    expect(active()).toMatch(/^Battery A/);
    await user.keyboard('{ArrowRight}');
    expect(active()).toMatch(/Received \(pending\)$/);
    await user.keyboard('{Shift>}{F10}{/Shift}');
    await user.click(
      await screen.findByRole('menuitem', { name: 'Duplicate to devices or days…' }),
    );
    const dialog = await screen.findByRole('dialog', { name: /^Duplicate command cmd_1/ });
    await user.click(within(dialog).getByRole('checkbox', { name: /^Battery B/ }));
    await user.click(within(dialog).getByRole('button', { name: /^Send 2 copies/ }));
    const notice = await screen.findByText(
      /Battery A, \+1 day.*Queued: it goes at .*Battery B, \+1 day.*Queued: it goes at/,
    );

    const reason =
      'The window overlaps another command of BAT-EU-001-B, which is waiting or running.';
    const [forA, forB] = bff.changes;
    Object.assign(forA ?? {}, {
      state: 'sent',
      goesAt: undefined,
      steps: (forA?.steps ?? []).map((step) => ({
        ...step,
        state: 'sent',
        sentAt: forA?.goesAt,
        answer: { status: 202, body: { id: 'cmd_9' } },
      })),
    });
    Object.assign(forB ?? {}, {
      state: 'failed',
      goesAt: undefined,
      outcome: { failure: 'refused', detail: reason },
    });
    for (const [changeId, state, deviceId] of [
      [forA?.id ?? '', 'sent', DEVICE],
      [forB?.id ?? '', 'failed', 'BAT-EU-001-B'],
    ] as const)
      for (const filters of invalidationsOf({
        id: changeId,
        type: 'queuedChangeChanged',
        data: { changeId, state, deviceIds: [deviceId] },
        createdAt: new Date().toISOString(),
      }))
        await queryClient.invalidateQueries(filters);
    await waitFor(() =>
      expect(notice.textContent).toMatch(
        /^Copy for Battery A, \+1 day sent as command cmd_9 at .*\. Copy for Battery B, \+1 day refused by the vendor when it went\. The window overlaps/,
      ),
    );
    expect(notice.textContent).not.toMatch(/not sent yet/);
  });
});
