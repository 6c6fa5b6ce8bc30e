import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { DeviceCommand, StatusRecord } from '#domain/command.ts';
import type { QueuedChangeStatus, QueuedChangeStepStatus } from '#domain/queued-change.ts';
import type { CommandVerdictRecord } from '#domain/verdict-answer.ts';
import { json, problem, stubFetch, type RecordedRequest } from '../../testing/fake-fetch.ts';
import { dateTimeField, describedText, field, shownDateTime } from '../../testing/form-fields.ts';
import { renderApp } from '../../testing/render.tsx';
import { invalidationsOf } from '../push-updates.ts';
// Loaded before Date is faked: @date-fns/tz's TZDate extends the global Date at load time, and
// the device page (which uses it) is a lazy route.
import '../routes/device.tsx';
import { fakeDateAt } from '../../testing/fake-date.ts';
import { zonedAdelaideDepot } from '../../testing/test-devices.ts';
import { receivedRecord } from '../../testing/status-records.ts';
import { verdictRecord } from '../../testing/verdict-records.ts';

const SITE = zonedAdelaideDepot({
  targetBatteryPowerW: { min: -5000, max: 5000 },
  chargeCutoffSocPercent: { min: 50, max: 100 },
  dischargeCutoffSocPercent: { min: 0, max: 50 },
  siteImportLimitW: { min: 0, max: 20000 },
});
const PATH = '/sites/PLANT-AU-001/devices/BAT-AU-001-A';
const NOW = '2026-11-21T00:52:00Z';

const completed: StatusRecord = {
  id: 'cmd_done',
  deviceId: 'BAT-AU-001-A',
  powerControl: { siteImportLimitW: 3000 },
  startTime: '2026-11-20T20:00:00Z',
  endTime: '2026-11-20T21:00:00Z',
  status: 'completed',
  receivedAt: '2026-11-20T19:00:00Z',
  startedAt: '2026-11-20T20:00:00Z',
  completedAt: '2026-11-20T21:00:00Z',
};

/**
 * A signed-in fake BFF holding the device's commands; `cmd_late` completes when cancelled. With
 * `queueSubmissions` (`queueCancels`), the device's budget of upstream calls is spent: a
 * submission (a cancel) is queued to go at `GOES_AT` (202 `{ queued }`), listed as a waiting
 * change until withdrawn; `changes` are waiting already when the page opens.
 */
function fakeBff(
  initial: StatusRecord[] = [],
  {
    queueSubmissions = false,
    queueCancels = false,
    changes: waiting = [],
    verdicts = [],
  }: {
    queueSubmissions?: boolean;
    queueCancels?: boolean;
    changes?: QueuedChangeStatus[];
    verdicts?: CommandVerdictRecord[];
  } = {},
) {
  const commands = [...initial];
  const changes: QueuedChangeStatus[] = [...waiting];
  let next = 1;
  const requests = stubFetch((request: RecordedRequest) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session') return json(200, { region: 'au', clientId: 'demo-au' });
    if (route === 'GET /api/sites') return json(200, { sites: [SITE] });
    if (route === 'GET /api/devices/BAT-AU-001-A/commands') return json(200, { commands });
    if (route === 'GET /api/devices/BAT-AU-001-A/verdicts')
      return json(200, { deviceId: 'BAT-AU-001-A', verdicts });
    if (route === 'GET /api/changes')
      return json(200, { changes: changes.filter((c) => c.state === 'queued') });
    const one = /^GET \/api\/changes\/([\w-]+)$/.exec(route);
    if (one) {
      const change = changes.find((c) => c.id === one[1]);
      return change ? json(200, change) : problem(404, 'change_not_found', 'No such change.');
    }
    if (route === 'POST /api/devices/BAT-AU-001-A/commands' && queueSubmissions) {
      const command = request.body as DeviceCommand;
      const change = queuedSubmission(`chg_${next++}`, command);
      changes.push(change);
      return queuedAnswer(change.id);
    }
    const withdraw = /^DELETE \/api\/changes\/([\w-]+)$/.exec(route);
    const withdrawn = changes.find((c) => c.id === withdraw?.[1]);
    if (withdrawn) {
      withdrawn.state = 'withdrawn';
      return json(200, { change: withdrawn });
    }
    if (route === 'POST /api/devices/BAT-AU-001-A/commands') {
      const body = request.body as Pick<StatusRecord, 'powerControl' | 'startTime' | 'endTime'>;
      const id = `cmd_${next++}`;
      commands.push({ ...body, id, deviceId: 'BAT-AU-001-A', status: 'received', receivedAt: NOW });
      return json(202, { id, message: 'accepted', timestamp: NOW });
    }
    const cancel = /^PUT \/api\/devices\/BAT-AU-001-A\/commands\/([\w-]+)\/cancel$/.exec(route);
    const command = commands.find((c) => c.id === cancel?.[1]);
    if (cancel && command && queueCancels) {
      const change = queuedCancel(`chg_${next++}`, command.id);
      changes.push(change);
      return queuedAnswer(change.id);
    }
    if (cancel && command) {
      if (command.id === 'cmd_late') {
        Object.assign(command, { status: 'completed', completedAt: NOW });
        return problem(409, 'not_cancellable', `Command ${command.id} is completed.`);
      }
      Object.assign(command, {
        status: 'cancelled',
        cancelledAt: NOW,
        cancelReason: 'manuallyCancel',
      });
      return json(200, command);
    }
    const status = /^GET \/api\/devices\/BAT-AU-001-A\/commands\/([\w-]+)$/.exec(route);
    const polled = commands.find((c) => c.id === status?.[1]);
    if (polled) return json(200, polled);
    return problem(404, 'not_found', `no route ${route}`);
  });
  return { requests, commands, changes };
}

/** When a queued change goes in these tests: a minute and 20 s after `NOW`. */
const GOES_AT = '2026-11-21T00:53:20Z';

/** The BFF's answer to a change it queued for the device's next free call. */
const queuedAnswer = (changeId: string) =>
  json(202, {
    queued: { changeId, goesAt: GOES_AT, reason: 'no_slot', deviceIds: ['BAT-AU-001-A'] },
  });

/** A change of `kind` queued on the device for `GOES_AT`, its one step `step` waiting until then. */
function queuedOnDevice(
  id: string,
  kind: QueuedChangeStatus['kind'],
  step: Pick<QueuedChangeStepStatus, 'call'> & Partial<QueuedChangeStepStatus>,
  more: Partial<QueuedChangeStatus> = {},
): QueuedChangeStatus {
  return {
    id,
    kind,
    state: 'queued',
    deviceIds: ['BAT-AU-001-A'],
    steps: [{ deviceIds: ['BAT-AU-001-A'], state: 'waiting', plannedAt: GOES_AT, ...step }],
    goesAt: GOES_AT,
    createdAt: NOW,
    updatedAt: NOW,
    ...more,
  };
}

const queuedSubmission = (id: string, command: DeviceCommand) =>
  queuedOnDevice(id, 'submit', { call: 'submit', command }, { madeBy: 'Dana Operator' });

const queuedCancel = (id: string, commandId: string) =>
  queuedOnDevice(id, 'cancel', { call: 'cancel', commandId });

/** A command waiting for its window, in the future of `NOW`. */
const open = receivedRecord({
  id: 'cmd_open',
  deviceId: 'BAT-AU-001-A',
  startTime: '2026-11-21T03:00:00Z',
  endTime: '2026-11-21T04:00:00Z',
  receivedAt: '2026-11-20T19:00:00Z',
});

describe('device page', () => {
  fakeDateAt(NOW);

  it('shows the device, its ranges and a window on the site clock with UTC alongside', async () => {
    fakeBff();
    renderApp(PATH);
    expect(await screen.findByRole('heading', { level: 1, name: /BAT-AU-001-A/ })).toBeTruthy();
    expect(field('Site export limit (W)')).toHaveProperty('disabled', true);
    expect(describedText(field('Site export limit (W)'))).toContain('Not supported by this device');
    expect(describedText(field('Target battery power (W)'))).toContain(
      'Positive discharges the battery, negative charges it.',
    );
    expect(shownDateTime('Start')).toBe('2026-11-21, 11:30 GMT+10:30');
    expect(shownDateTime('End')).toBe('2026-11-21, 12:30 GMT+10:30');
    expect(describedText(dateTimeField('Start'))).toContain('UTC 2026-11-21 01:00');
    expect(describedText(dateTimeField('End'))).toContain('UTC 2026-11-21 02:00');
    expect(screen.getByText('Australia/Adelaide', { selector: 'strong' })).toBeTruthy();
    expect(await screen.findByText(/No commands for this device/)).toBeTruthy();
  });

  it('shows its verdicts below its commands: power and state of charge over the windows, and the list', async () => {
    fakeBff([completed], {
      verdicts: [
        verdictRecord(
          {
            commandId: 'cmd_done',
            powerControl: completed.powerControl,
            startTime: completed.startTime,
            endTime: completed.endTime,
          },
          { verdict: 'limitedBySiteLimit', commandedEnergyWh: null, deliveredEnergyWh: 4900 },
        ),
      ],
    });
    renderApp(PATH);
    const section = await screen.findByRole('region', {
      name: 'Verdicts: commanded against measured',
    });
    const list = await within(section).findByRole('table', {
      name: 'Verdicts, newest window first',
    });
    // 20:00–21:00 UTC is 06:30–07:30 the next morning in Adelaide.
    expect(within(list).getAllByRole('row')[1]?.textContent).toContain(
      '2026-11-21 06:30–07:30UTC 2026-11-20 20:00–21:00import limit 3 kWLimited by a site limit',
    );
    expect(
      await within(section).findByRole('figure', { name: 'Battery power and state of charge' }),
    ).toBeTruthy();
  });

  it('says when the device has no verdict yet', async () => {
    fakeBff();
    renderApp(PATH);
    expect(
      await screen.findByText(/a verdict comes a minute after a command's window ends/),
    ).toBeTruthy();
  });

  it('refuses an empty command and an out-of-range value before sending, then submits', async () => {
    const { requests } = fakeBff();
    const user = userEvent.setup();
    renderApp(PATH);
    const submit = await screen.findByRole('button', { name: 'Submit command' });

    await user.click(submit);
    expect((await screen.findByRole('alert')).textContent).toContain(
      'Set at least one power control',
    );

    await user.type(field('Target battery power (W)'), '6000');
    await user.click(submit);
    await waitFor(() =>
      expect(field('Target battery power (W)').getAttribute('aria-invalid')).toBe('true'),
    );
    expect(describedText(field('Target battery power (W)'))).toContain(
      'must be between -5000 and 5000 W on this device',
    );
    expect(screen.queryByRole('alert')).toBeNull();
    expect(requests.some((r) => r.method === 'POST')).toBe(false);

    await user.clear(field('Target battery power (W)'));
    await user.type(field('Target battery power (W)'), '-3000');
    await user.type(field('Charge cut-off SoC (%)'), '90');
    await user.click(submit);

    expect(await screen.findByText('Command submitted: cmd_1')).toBeTruthy();
    expect(screen.getByText('Command submitted: cmd_1').getAttribute('role')).toBe('status');
    const post = requests.find((r) => r.method === 'POST');
    expect(post?.headers.get('X-CSRF')).toBe('1');
    expect(post?.body).toEqual({
      powerControl: { targetBatteryPowerW: -3000, chargeCutoffSocPercent: 90 },
      startTime: '2026-11-21T01:00:00Z',
      endTime: '2026-11-21T02:00:00Z',
    });

    const row = await screen.findByRole('row', { name: /cmd_1/ });
    expect(within(row).getByText('received')).toBeTruthy();
    expect(row.textContent).toContain('3 kW charge, stop charging at 90%');
    expect(row.textContent).toContain('2026-11-21 11:30–12:30');
    expect(row.textContent).toContain('UTC 2026-11-21 01:00–02:00');
    expect(shownDateTime('Start')).toBe('2026-11-21, 12:30 GMT+10:30');

    const history = requests.find((r) => r.path === '/api/devices/BAT-AU-001-A/commands');
    const rangeMs =
      Date.parse(history?.search.get('endTime') ?? '') -
      Date.parse(history?.search.get('startTime') ?? '');
    expect(rangeMs).toBe(30 * 24 * 3600_000);
  });

  it('says when a submission the budget queued goes, lists it, and withdraws it after confirmation', async () => {
    const { requests } = fakeBff([], { queueSubmissions: true });
    const user = userEvent.setup();
    renderApp(PATH);
    expect(await screen.findByText(/No change is waiting/)).toBeTruthy();

    await user.type(field('Target battery power (W)'), '-3000');
    await user.click(await screen.findByRole('button', { name: 'Submit command' }));

    const status = await screen.findByText(/^Command not sent yet\./);
    expect(status.getAttribute('role')).toBe('status');
    expect(status.textContent).toContain(
      'it goes at 2026-11-21 11:23 (Australia/Adelaide), UTC 2026-11-21 00:53',
    );
    expect(status.textContent).toContain(
      "the device's calls to the vendor for this minute are spent",
    );
    expect(screen.queryByRole('alert')).toBeNull();

    const list = await screen.findByRole('list', { name: 'Queued changes' });
    const item = within(list).getByRole('listitem');
    expect(item.textContent).toContain('New command: send 3 kW charge');
    expect(item.textContent).toContain('Goes at 2026-11-21 11:23 (Australia/Adelaide)');
    expect(item.textContent).toContain('Made by Dana Operator.');

    // Backing out of the confirmation withdraws nothing.
    await user.click(within(item).getByRole('button', { name: 'Withdraw' }));
    await user.click(await screen.findByRole('button', { name: 'Keep change' }));
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);

    await user.click(within(item).getByRole('button', { name: 'Withdraw' }));
    await user.click(await screen.findByRole('button', { name: 'Withdraw change' }));
    expect(await screen.findByText('Withdrawn: nothing of that change was sent.')).toBeTruthy();
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      '/api/changes/chg_1',
    ]);
    expect(await screen.findByText(/No change is waiting/)).toBeTruthy();
  });

  it('cancels after confirmation and shows the reason in words', async () => {
    fakeBff([
      {
        ...completed,
        id: 'cmd_open',
        status: 'received',
        startTime: '2026-11-21T03:00:00Z',
        endTime: '2026-11-21T04:00:00Z',
        completedAt: undefined,
        startedAt: undefined,
      },
      completed,
    ]);
    const user = userEvent.setup();
    renderApp(PATH);

    const doneRow = await screen.findByRole('row', { name: /cmd_done/ });
    expect(within(doneRow).queryByRole('button', { name: 'Cancel' })).toBeNull();
    const openRow = screen.getByRole('row', { name: /cmd_open/ });
    const rows = screen.getAllByRole('row');
    expect(rows.indexOf(openRow)).toBeLessThan(rows.indexOf(doneRow));

    await user.click(within(openRow).getByRole('button', { name: 'Cancel' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel command' }));
    await waitFor(() => expect(within(openRow).getByText('cancelled')).toBeTruthy());
    expect(openRow.textContent).toContain('Cancelled by an operator');
    expect(within(openRow).queryByRole('button', { name: 'Cancel' })).toBeNull();
  });

  it('says in its row when a queued cancel goes, and offers to withdraw it instead of cancelling again', async () => {
    const { requests } = fakeBff([open], { queueCancels: true });
    const user = userEvent.setup();
    renderApp(PATH);
    const row = await screen.findByRole('row', { name: /cmd_open/ });

    await user.click(within(row).getByRole('button', { name: 'Cancel' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel command' }));
    // On the site's clock, as the timeline's bar says it.
    await waitFor(() => expect(row.textContent).toContain('Cancel queued, goes at 11:23:20'));
    expect(within(row).queryByRole('button', { name: 'Cancel' })).toBeNull();

    await user.click(within(row).getByRole('button', { name: 'Withdraw' }));
    await user.click(await screen.findByRole('button', { name: 'Withdraw change' }));
    await waitFor(() => expect(within(row).getByRole('button', { name: 'Cancel' })).toBeTruthy());
    expect(row.textContent).not.toContain('Cancel queued');
    expect(requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      '/api/changes/chg_1',
    ]);
  });

  it("follows a cancel it queued: the line that said 'not sent yet' says sent once the cancel went", async () => {
    const { changes, commands } = fakeBff([open], { queueCancels: true });
    const user = userEvent.setup();
    const { queryClient } = renderApp(PATH);
    const row = await screen.findByRole('row', { name: /cmd_open/ });
    await user.click(within(row).getByRole('button', { name: 'Cancel' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel command' }));
    const line = await screen.findByText(
      /^Cancel of command cmd_open not sent yet\. Queued: it goes at 2026-11-21 11:23/,
    );

    // The cancel goes at its slot: the vendor cancels the command, the BFF pushes the change.
    const [change] = changes;
    Object.assign(change ?? {}, {
      state: 'sent',
      goesAt: undefined,
      steps: (change?.steps ?? []).map((step) => ({ ...step, state: 'sent', sentAt: GOES_AT })),
    });
    Object.assign(commands[0] ?? {}, {
      status: 'cancelled',
      cancelledAt: GOES_AT,
      cancelReason: 'manuallyCancel',
    });
    for (const filters of invalidationsOf({
      id: '5',
      type: 'queuedChangeChanged',
      data: { changeId: change?.id ?? '', state: 'sent', deviceIds: ['BAT-AU-001-A'] },
      createdAt: GOES_AT,
    }))
      await queryClient.invalidateQueries(filters);
    await waitFor(() =>
      expect(line.textContent).toMatch(
        /^Cancel of command cmd_open sent at 2026-11-21 11:23 \(Australia\/Adelaide\).*after waiting for the device's next free call\.$/,
      ),
    );
    await waitFor(() => expect(row.textContent).toContain('Cancelled by an operator'));
  });

  it('shows a cancel queued before the page opened in its command’s row', async () => {
    fakeBff([open], { changes: [queuedCancel('chg_elsewhere', 'cmd_open')] });
    renderApp(PATH);
    const row = await screen.findByRole('row', { name: /cmd_open/ });
    await waitFor(() => expect(row.textContent).toContain('Cancel queued, goes at 11:23:20'));
    expect(within(row).getByRole('button', { name: 'Withdraw' })).toBeTruthy();
    expect(within(row).queryByRole('button', { name: 'Cancel' })).toBeNull();
  });

  it('explains that a completed command cannot be cancelled when cancel meets a conflict', async () => {
    fakeBff([{ ...completed, id: 'cmd_late', status: 'executing', completedAt: undefined }]);
    const user = userEvent.setup();
    renderApp(PATH);
    const row = await screen.findByRole('row', { name: /cmd_late/ });
    await user.click(within(row).getByRole('button', { name: 'Cancel' }));
    await user.click(await screen.findByRole('button', { name: 'Keep command' }));
    await user.click(within(row).getByRole('button', { name: 'Cancel' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel command' }));

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/completed command cannot be cancelled/i);
    expect(alert.textContent).toContain('cmd_late');
    await waitFor(() => expect(within(row).getByText('completed')).toBeTruthy());
  });
});
