import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { QueuedChangeStatus } from '#domain/queued-change.ts';
import { json, problem, stubFetch } from '../../testing/fake-fetch.ts';
import { renderApp } from '../../testing/render.tsx';
// Loaded before Date is faked: @date-fns/tz's TZDate extends the global Date at load time.
import '../routes/queued-changes.tsx';
import { fakeDateAt } from '../../testing/fake-date.ts';
import { zonedAdelaideDepot } from '../../testing/test-devices.ts';

const NOW = '2026-11-21T00:52:00Z';
const SITE = zonedAdelaideDepot({ targetBatteryPowerW: { min: -5000, max: 5000 } });

/** A replace waiting for the device's next call: its cancel went, its submission waits. */
const REPLACE: QueuedChangeStatus = {
  id: 'chg_1',
  kind: 'replace',
  state: 'sending',
  deviceIds: ['BAT-AU-001-A'],
  steps: [
    {
      call: 'cancel',
      deviceIds: ['BAT-AU-001-A'],
      state: 'sent',
      plannedAt: NOW,
      commandId: 'cmd_old',
    },
    {
      call: 'submit',
      deviceIds: ['BAT-AU-001-A'],
      state: 'waiting',
      plannedAt: '2026-11-21T00:53:10Z',
      command: {
        powerControl: { targetBatteryPowerW: 2000 },
        startTime: '2026-11-21T03:00:00Z',
        endTime: '2026-11-21T04:00:00Z',
      },
    },
  ],
  goesAt: '2026-11-21T00:53:10Z',
  createdAt: NOW,
  updatedAt: NOW,
};
const [, WAITING_STEP] = REPLACE.steps;
if (!WAITING_STEP) throw new Error('the replace has two steps');
const SUBMIT: QueuedChangeStatus = {
  ...REPLACE,
  id: 'chg_2',
  kind: 'submit',
  state: 'queued',
  steps: [{ ...WAITING_STEP, plannedAt: '2026-11-21T00:54:00Z' }],
  goesAt: '2026-11-21T00:54:00Z',
  madeBy: 'Kim',
};

describe('queued changes page', () => {
  fakeDateAt(NOW);

  it("lists the account's waiting changes on their site's clock; one being sent cannot be withdrawn", async () => {
    const requests = stubFetch((request) => {
      const route = `${request.method} ${request.path}`;
      if (route === 'GET /api/session') return json(200, { region: 'au', clientId: 'demo-au' });
      if (route === 'GET /api/sites') return json(200, { sites: [SITE] });
      if (route === 'GET /api/changes') return json(200, { changes: [SUBMIT, REPLACE] });
      if (route === 'DELETE /api/changes/chg_2')
        return json(200, { change: { ...SUBMIT, state: 'withdrawn' } });
      return problem(404, 'not_found', `no route ${route}`);
    });
    const user = userEvent.setup();
    renderApp('/changes');

    const list = await screen.findByRole('list', { name: 'Queued changes' });
    const [submit, replace] = within(list).getAllByRole('listitem');
    if (!submit || !replace) throw new Error('two changes listed');
    expect(replace.textContent).toContain('Replace: cancel command cmd_old, then send 2 kW');
    expect(replace.textContent).toContain('Being sent now; it can no longer be withdrawn.');
    expect(within(replace).queryByRole('button', { name: 'Withdraw' })).toBeNull();
    expect(submit.textContent).toContain(
      'Goes at 2026-11-21 11:24 (Australia/Adelaide), UTC 2026-11-21 00:54.',
    );
    expect(submit.textContent).toContain('Made by Kim.');
    expect(requests.find((r) => r.path === '/api/changes')?.search.get('waiting')).toBe('true');

    await user.click(within(submit).getByRole('button', { name: 'Withdraw' }));
    await user.click(await screen.findByRole('button', { name: 'Withdraw change' }));
    expect(await screen.findByText('Withdrawn: nothing of that change was sent.')).toBeTruthy();
  });

  it('words the budget the session says, and the vendor’s when it says none', async () => {
    for (const [said, words] of [
      [{ limit: 3, windowSeconds: 60 }, 'three per device per minute'],
      [undefined, 'two per device per minute'],
    ] as const) {
      stubFetch((request) => {
        const route = `${request.method} ${request.path}`;
        if (route === 'GET /api/session')
          return json(200, { region: 'au', clientId: 'demo-au', deviceCallBudget: said });
        if (route === 'GET /api/sites') return json(200, { sites: [SITE] });
        if (route === 'GET /api/changes') return json(200, { changes: [] });
        return problem(404, 'not_found', `no route ${route}`);
      });
      const { unmount } = renderApp('/changes');
      const empty = await screen.findByText(/No change is waiting/);
      expect(empty.textContent).toContain(`(${words})`);
      expect(screen.getByText(/Calls to the vendor go at most/).textContent).toContain(words);
      unmount();
    }
  });
});
