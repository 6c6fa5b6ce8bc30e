import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installDesignTokens } from '#client/testing/design-tokens.ts';
import { stubElementWidth } from '#client/testing/element-width.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { verdictRecord } from '#client/testing/verdict-records.ts';
import { createPushApplier } from '#client/app/push-updates.ts';
import { DeviceVerification } from '../device-verification.tsx';

const DEVICE = 'BAT-AU-001-A';
const PATH = `/api/devices/${DEVICE}/verdicts`;
const first = verdictRecord({
  commandId: 'cmd_a',
  startTime: '2026-11-20T10:00:00Z',
  endTime: '2026-11-20T11:00:00Z',
});
const second = verdictRecord(
  { commandId: 'cmd_b', startTime: '2026-11-20T12:00:00Z', endTime: '2026-11-20T12:30:00Z' },
  { verdict: 'partlyDelivered' },
);

/** A fake BFF answering the device's verdicts with what `answer` gives at each read. */
function fakeVerdicts(answer: () => Response) {
  return stubFetch((request) =>
    request.path === PATH ? answer() : problem(404, 'not_found', 'No such route.'),
  );
}

let removeTokens = () => {};
beforeEach(() => {
  removeTokens = installDesignTokens();
  stubElementWidth(900);
});
afterEach(() => removeTokens());

const show = () =>
  renderWithProviders(<DeviceVerification deviceId={DEVICE} timeZone="Australia/Adelaide" />);

describe('DeviceVerification', () => {
  it('says it is loading, then shows the chart above the list of verdicts', async () => {
    let release: (response: Response) => void = () => {};
    stubFetch((request) =>
      request.path === PATH
        ? new Promise<Response>((resolve) => (release = resolve))
        : problem(404, 'not_found', 'No such route.'),
    );
    show();
    expect(screen.getByRole('status').textContent).toBe('Loading the verdicts…');
    await act(async () => release(json(200, { deviceId: DEVICE, verdicts: [second, first] })));
    expect(
      await screen.findByRole('table', { name: 'Verdicts, newest window first' }),
    ).toBeTruthy();
    expect(
      await screen.findByRole('figure', { name: 'Battery power and state of charge' }),
    ).toBeTruthy();
    expect(screen.getByText(/newest day with a verdict/)).toBeTruthy();
  });

  it('says no verdict came yet for a device without one', async () => {
    fakeVerdicts(() => json(200, { deviceId: DEVICE, verdicts: [] }));
    show();
    expect(await screen.findByText(/a verdict comes a minute after/)).toBeTruthy();
    expect(screen.queryByRole('figure')).toBeNull();
  });

  it('reads an answer not of the verdicts shape as an error with Try again, never as data', async () => {
    // A verdict the domain does not know, and samples as rows instead of columns.
    const bad = { ...first, result: { ...first.result, verdict: 'fine' }, samples: [{ atMs: 1 }] };
    fakeVerdicts(() => json(200, { deviceId: DEVICE, verdicts: [bad] }));
    show();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain("Could not read the device's verdicts.");
    expect(alert.textContent).toMatch(/not in the expected shape/);
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('says the site must be bound again when the BFF answers 404 for a device of an unbound site', async () => {
    fakeVerdicts(() => problem(404, 'device_not_found', 'Device BAT-AU-001-A is not bound.'));
    show();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain("Could not read the device's verdicts.");
  });

  it('reads the verdicts again when a pushed event says they changed', async () => {
    let answer = { deviceId: DEVICE, verdicts: [first] };
    const requests = fakeVerdicts(() => json(200, answer));
    const { queryClient } = show();
    await screen.findByRole('table', { name: 'Verdicts, newest window first' });
    expect(screen.queryByText('Partly delivered')).toBeNull();
    answer = { deviceId: DEVICE, verdicts: [second, first] };
    createPushApplier(queryClient, 0, 0).apply({
      type: 'deviceVerdictsChanged',
      id: '7',
      data: { deviceIds: [DEVICE] },
    });
    await waitFor(() => expect(screen.getAllByText('Partly delivered').length).toBeGreaterThan(0));
    expect(requests.filter((request) => request.path === PATH)).toHaveLength(2);
  });
  it('while a command runs, says it watches the device and shows its window judged so far', async () => {
    const running = verdictRecord({
      commandId: 'cmd_run',
      startTime: '2026-11-20T14:00:00Z',
      endTime: '2026-11-20T16:00:00Z',
      judgedTo: '2026-11-20T14:20:00Z',
      running: true,
    });
    const requests = stubFetch((request) =>
      request.path === PATH
        ? json(200, { deviceId: DEVICE, verdicts: [first], running: [running] })
        : request.path === `/api/devices/${DEVICE}/watch`
          ? json(200, { deviceId: DEVICE, windowsDue: 1 })
          : problem(404, 'not_found', 'No such route.'),
    );
    renderWithProviders(
      <DeviceVerification deviceId={DEVICE} timeZone="Australia/Adelaide" running />,
    );
    expect(
      await screen.findByText(/So far: still running, measured to 2026-11-21 00:50/),
    ).toBeTruthy();
    const watches = requests.filter((request) => request.path.endsWith('/watch'));
    expect(watches.map((request) => request.method)).toEqual(['POST']);
  });

  it('does not watch a device with no command running', async () => {
    const requests = fakeVerdicts(() => json(200, { deviceId: DEVICE, verdicts: [first] }));
    show();
    await screen.findByRole('table', { name: 'Verdicts, newest window first' });
    expect(requests.filter((request) => request.path.endsWith('/watch'))).toHaveLength(0);
  });
});
