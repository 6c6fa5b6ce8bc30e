import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { WebhookDelivery, WebhookEndpoint } from '#domain/webhooks.ts';
import { json, noContent, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { fakeDateAt } from '#client/testing/fake-date.ts';
import { typeDateTime } from '#client/testing/form-fields.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import {
  PENDING_REFRESH_MS,
  WATCH_AFTER_ACTION_MS,
  logRefreshMs,
} from '../../api/webhook-deliveries.ts';
import { DeliveryLog } from '../delivery-log.tsx';
import { EndpointList } from '../endpoint-list.tsx';
import { EndpointMaker } from '../endpoint-maker.tsx';
import { EndpointPanel } from '../endpoint-panel.tsx';

const SECRET = `whsec_${'A'.repeat(32)}`;
const ENDPOINT_ID = 'ep_0123456789abcdef';
const NOW_MS = Date.parse('2026-11-29T12:00:00.000Z');

const endpoint: WebhookEndpoint = {
  id: ENDPOINT_ID,
  url: 'https://tickets.example.com/powerdeck',
  description: 'ticketing',
  eventTypes: ['batch.deviceFailed', 'change.refused'],
  siteIds: [],
  enabled: true,
  createdAt: '2026-11-28T09:00:00.000Z',
  madeBy: 'Ada Admin',
  lastAttempt: { at: '2026-11-29T11:00:00.000Z', succeeded: true, statusCode: 200 },
};

const failedDelivery: WebhookDelivery = {
  id: 'dlv_0123456789abcdef',
  endpointId: ENDPOINT_ID,
  eventId: 'msg_0123456789abcdef',
  eventType: 'batch.deviceFailed',
  createdAt: '2026-11-29T10:00:00.000Z',
  status: 'failed',
  attempts: [
    {
      at: '2026-11-29T10:00:01.000Z',
      statusCode: 500,
      latencyMs: 120,
      responseExcerpt: '<h1>Internal error</h1>',
    },
    {
      at: '2026-11-29T10:00:06.000Z',
      latencyMs: 10000,
      error: 'timed out after 10 s',
    },
  ],
  payload: {
    type: 'batch.deviceFailed',
    timestamp: '2026-11-29T10:00:00.000Z',
    data: { deviceId: 'BAT-1', links: { device: '/api/devices/BAT-1' } },
  },
};

const pendingDelivery: WebhookDelivery = {
  ...failedDelivery,
  id: 'dlv_fedcba9876543210',
  eventId: 'msg_fedcba9876543210',
  eventType: 'webhook.test',
  createdAt: '2026-11-29T11:30:00.000Z',
  status: 'pending',
  nextAttemptAt: '2026-11-29T11:35:00.000Z',
  attempts: [],
};

describe('the list of webhook endpoints', () => {
  it('shows address, events in words, sites, state and the latest attempt', () => {
    renderWithProviders(
      <EndpointList
        endpoints={[
          endpoint,
          {
            ...endpoint,
            id: 'ep_fedcba9876543210',
            url: 'https://gone.example.com/hook',
            siteIds: ['PLANT-1', 'PLANT-2'],
            enabled: false,
            disabledReason: 'gone',
            lastAttempt: { at: '2026-11-29T11:10:00.000Z', succeeded: false, statusCode: 410 },
          },
        ]}
        timeZone="Europe/Berlin"
        nowMs={NOW_MS}
      />,
    );
    const on = screen.getByRole('row', { name: /tickets\.example\.com/ });
    expect(on.textContent).toContain('A device of a batch failed');
    expect(on.textContent).toContain('A queued change was refused');
    expect(on.textContent).toContain('every site');
    expect(on.textContent).toContain('On');
    expect(on.textContent).toContain('12:00 (Europe/Berlin), UTC 11:00: delivered (200)');
    expect(within(on).getByRole('link').getAttribute('href')).toBe(`/webhooks/${ENDPOINT_ID}`);
    const off = screen.getByRole('row', { name: /gone\.example\.com/ });
    expect(off.textContent).toContain('PLANT-1, PLANT-2');
    expect(off.textContent).toContain('Turned off: the address answered Gone');
    expect(off.textContent).toContain('failed (410)');
  });

  it('says what webhooks are for, and where the guide is, while there is none', () => {
    renderWithProviders(<EndpointList endpoints={[]} timeZone="UTC" nowMs={NOW_MS} />);
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.getByText(/No endpoints yet/).parentElement?.textContent).toContain(
      'tells another system what powerdeck learns',
    );
    expect(screen.getByText('docs/automation.md, Webhooks')).toBeTruthy();
  });
});

describe('adding a webhook endpoint', () => {
  async function fillForm(user: ReturnType<typeof userEvent.setup>) {
    await user.type(screen.getByLabelText('Address'), 'https://tickets.example.com/powerdeck');
    await user.type(screen.getByLabelText('Description (optional)'), 'ticketing');
    await user.click(screen.getByRole('checkbox', { name: /A device of a batch failed/ }));
    await user.click(screen.getByRole('checkbox', { name: /A queued change was refused/ }));
    await user.type(screen.getByLabelText('Sites (optional)'), 'PLANT-1');
  }

  it('words what is missing in the product words, sending nothing', async () => {
    const user = userEvent.setup();
    const requests = stubFetch(() => json(201, { endpoint, secret: SECRET }));
    renderWithProviders(<EndpointMaker />);
    await user.type(screen.getByLabelText('Address'), 'tickets.example.com');
    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));
    expect(
      await screen.findByText('Give the address the events go to, starting https://'),
    ).toBeTruthy();
    expect(screen.getByText('Choose at least one event to send')).toBeTruthy();
    expect(requests).toHaveLength(0);
  });

  it('keeps everything typed when the server refuses, and says why', async () => {
    const user = userEvent.setup();
    const requests = stubFetch(() =>
      problem(
        422,
        'webhook_address_refused',
        'The address is private: only an administrator allows private addresses.',
      ),
    );
    renderWithProviders(<EndpointMaker />);
    await fillForm(user);
    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The endpoint was not added.');
    expect(alert.textContent).toContain('The address is private');
    expect(document.activeElement).toBe(alert);
    expect(requests[0]?.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    expect((screen.getByLabelText('Address') as HTMLInputElement).value).toBe(
      'https://tickets.example.com/powerdeck',
    );
    expect((screen.getByLabelText('Description (optional)') as HTMLInputElement).value).toBe(
      'ticketing',
    );
    expect(
      (screen.getByRole('checkbox', { name: /A device of a batch failed/ }) as HTMLInputElement)
        .checked,
    ).toBe(true);
    expect((screen.getByLabelText('Sites (optional)') as HTMLInputElement).value).toBe('PLANT-1');
  });

  it('sends address, events and sites, and shows the secret once with a copy button', async () => {
    const user = userEvent.setup();
    const onKept = vi.fn();
    const requests = stubFetch((request) =>
      request.method === 'POST'
        ? json(201, { endpoint, secret: SECRET })
        : json(200, { endpoints: [endpoint] }),
    );
    renderWithProviders(<EndpointMaker onKept={onKept} />);
    await fillForm(user);
    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));
    const shown = await screen.findByRole('status', { name: /You will not see it again/ });
    expect(requests[0]).toMatchObject({
      method: 'POST',
      path: '/api/webhooks',
      body: {
        url: 'https://tickets.example.com/powerdeck',
        description: 'ticketing',
        eventTypes: ['change.refused', 'batch.deviceFailed'],
        siteIds: ['PLANT-1'],
      },
    });
    expect(document.activeElement).toBe(shown);
    expect(within(shown).getByLabelText('Signing secret').textContent).toBe(SECRET);
    expect((screen.getByLabelText('Address') as HTMLInputElement).value).toBe('');
    await user.click(within(shown).getByRole('button', { name: 'Copy secret' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    expect(within(shown).getByRole('button', { name: 'Copied' })).toBeTruthy();
    await user.click(within(shown).getByRole('button', { name: 'I have kept it' }));
    expect(screen.queryByText(SECRET)).toBeNull();
    expect(onKept).toHaveBeenCalledWith(ENDPOINT_ID);
  });
});

/** A fake BFF for one endpoint: its page, its log, and what a test adds. */
function endpointBff(
  extra: (method: string, path: string) => Response | undefined = () => undefined,
) {
  return stubFetch((request) => {
    const answer = extra(request.method, request.path);
    if (answer) return answer;
    if (request.path === `/api/webhooks/${ENDPOINT_ID}/deliveries`)
      return json(200, { deliveries: [failedDelivery] });
    if (request.path === `/api/webhooks/${ENDPOINT_ID}/deliveries/${failedDelivery.id}`)
      return json(200, failedDelivery);
    if (request.path === `/api/webhooks/${ENDPOINT_ID}`) return json(200, endpoint);
    return json(200, { endpoints: [endpoint] });
  });
}

describe("an endpoint's page", () => {
  it('rotates the secret only after a confirmation, and says until when the previous one signs', async () => {
    const user = userEvent.setup();
    const rotated = { ...endpoint, previousSecretSignsUntil: '2026-11-30T12:00:00.000Z' };
    const requests = endpointBff((method, path) =>
      method === 'POST' && path.endsWith('/rotate-secret')
        ? json(200, { endpoint: rotated, secret: SECRET })
        : undefined,
    );
    renderWithProviders(
      <EndpointPanel endpointId={ENDPOINT_ID} timeZone="Europe/Berlin" onDeleted={vi.fn()} />,
    );
    const heading = await screen.findByRole('heading', { name: /Endpoint https:\/\/tickets/ });
    expect(document.activeElement).toBe(heading);
    const rotations = () => requests.filter((request) => request.path.endsWith('/rotate-secret'));

    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Rotate the signing secret?' });
    expect(dialog.textContent).toContain('keeps signing beside it');
    await user.click(within(dialog).getByRole('button', { name: 'Keep secret' }));
    expect(rotations()).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Rotate secret' }),
    );
    const shown = await screen.findByRole('status', { name: /You will not see it again/ });
    expect(rotations()).toHaveLength(1);
    expect(rotations()[0]?.method).toBe('POST');
    expect(within(shown).getByLabelText('Signing secret').textContent).toBe(SECRET);
    expect(shown.textContent).toContain(
      'The previous one keeps signing beside it until 2026-11-30 13:00 (Europe/Berlin), UTC 2026-11-30 12:00',
    );
    await waitFor(() => expect(document.activeElement).toBe(shown));
    await user.click(within(shown).getByRole('button', { name: 'I have kept it' }));
    expect(screen.queryByText(SECRET)).toBeNull();
    expect(document.activeElement).toBe(
      screen.getByRole('heading', { name: /Endpoint https:\/\/tickets/ }),
    );
    expect(screen.getByText(/still signs until 2026-11-30 13:00/)).toBeTruthy();
  });

  it('sends a test event and says it shows in the log, which is read again until it does', async () => {
    const user = userEvent.setup();
    const requests = endpointBff((method, path) =>
      method === 'POST' && path.endsWith('/test') ? new Response(null, { status: 202 }) : undefined,
    );
    renderWithProviders(
      <EndpointPanel endpointId={ENDPOINT_ID} timeZone="UTC" onDeleted={vi.fn()} />,
    );
    await user.click(await screen.findByRole('button', { name: 'Send a test event' }));
    expect(
      await screen.findByText(
        'Test event queued: it shows in the delivery log below within seconds.',
      ),
    ).toBeTruthy();
    const sent = requests.filter((request) => request.method === 'POST');
    expect(sent.map((request) => request.path)).toEqual([`/api/webhooks/${ENDPOINT_ID}/test`]);
    expect(sent[0]?.headers.get('Idempotency-Key')).toBeTruthy();
    const nowMs = Date.now();
    expect(logRefreshMs(false, nowMs - 5_000)).toBe(PENDING_REFRESH_MS);
    expect(logRefreshMs(false, nowMs - WATCH_AFTER_ACTION_MS - 1)).toBe(false);
    expect(logRefreshMs(true, null)).toBe(PENDING_REFRESH_MS);
    expect(logRefreshMs(false, null)).toBe(false);
  });

  it('deletes after a confirmation and hands back to the list', async () => {
    const user = userEvent.setup();
    const onDeleted = vi.fn();
    const requests = endpointBff((method) => (method === 'DELETE' ? noContent() : undefined));
    renderWithProviders(
      <EndpointPanel endpointId={ENDPOINT_ID} timeZone="UTC" onDeleted={onDeleted} />,
    );
    await user.click(await screen.findByRole('button', { name: 'Delete endpoint' }));
    await user.click(
      within(
        await screen.findByRole('alertdialog', {
          name: 'Delete the endpoint https://tickets.example.com/powerdeck?',
        }),
      ).getByRole('button', { name: 'Delete endpoint' }),
    );
    await waitFor(() => expect(onDeleted).toHaveBeenCalled());
    expect(requests.find((request) => request.method === 'DELETE')?.path).toBe(
      `/api/webhooks/${ENDPOINT_ID}`,
    );
  });
});

describe("an endpoint's delivery log", () => {
  // Times of today's deliveries are written without their date.
  fakeDateAt('2026-11-29T12:00:00.000Z');

  it('lists deliveries, filters by status and pages on with the cursor', async () => {
    const user = userEvent.setup();
    const requests = stubFetch((request) =>
      request.search.get('before') === null
        ? json(200, { deliveries: [pendingDelivery, failedDelivery], next: failedDelivery.id })
        : json(200, { deliveries: [] }),
    );
    renderWithProviders(<DeliveryLog endpointId={ENDPOINT_ID} timeZone="UTC" />);
    const failed = await screen.findByRole('row', { name: /UTC 10:00/ });
    expect(failed.textContent).toContain('A device of a batch failed');
    expect(failed.textContent).toContain('Failed');
    expect(within(failed).getAllByRole('cell')[2]?.textContent).toBe('2');
    expect(failed.textContent).toContain('no answer after 10000 ms: timed out after 10 s');
    const waiting = screen.getByRole('row', { name: /UTC 11:30/ });
    expect(waiting.textContent).toContain('Test event');
    expect(waiting.textContent).toContain('Waiting');
    expect(waiting.textContent).toContain('UTC 11:35');

    await user.selectOptions(screen.getByLabelText('Status'), 'Failed');
    await waitFor(() => expect(requests.at(-1)?.search.get('status')).toBe('failed'));
    expect(requests.at(-1)?.path).toBe(`/api/webhooks/${ENDPOINT_ID}/deliveries`);

    await user.click(await screen.findByRole('button', { name: 'Older deliveries' }));
    await waitFor(() => expect(requests.at(-1)?.search.get('before')).toBe(failedDelivery.id));
    expect(requests.at(-1)?.search.get('status')).toBe('failed');
    expect(await screen.findByText(/No deliveries with the status failed/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Newer deliveries' })).toBeTruthy();
  });

  it('opens a delivery with its attempts and payload, and redelivers it', async () => {
    const user = userEvent.setup();
    const requests = endpointBff((method, path) =>
      method === 'POST' && path.endsWith('/redeliver') ? json(202, { redelivered: 1 }) : undefined,
    );
    renderWithProviders(<DeliveryLog endpointId={ENDPOINT_ID} timeZone="UTC" />);
    await user.click(await screen.findByRole('button', { name: /UTC 10:00.*open its attempts/ }));
    const drawer = await screen.findByRole('dialog', { name: 'Delivery' });
    const attempts = await within(drawer).findByRole('list', { name: 'Attempts' });
    const [first, second] = within(attempts).getAllByRole('listitem');
    expect(first?.textContent).toContain('answered 500 in 120 ms');
    expect(first?.querySelector('pre')?.getAttribute('aria-label')).toBe('Beginning of the answer');
    expect(first?.textContent).toContain('<h1>Internal error</h1>');
    expect(second?.textContent).toContain('no answer in 10000 ms');
    expect(second?.textContent).toContain('timed out after 10 s');
    expect(within(drawer).getByLabelText('Payload').textContent).toContain('"deviceId": "BAT-1"');

    await user.click(within(drawer).getByRole('button', { name: 'Redeliver' }));
    expect(await within(drawer).findByText('Queued again')).toBeTruthy();
    const sent = requests.filter((request) => request.method === 'POST');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.path).toBe(
      `/api/webhooks/${ENDPOINT_ID}/deliveries/${failedDelivery.id}/redeliver`,
    );
    expect(sent[0]?.headers.get('Idempotency-Key')).toBeTruthy();
  });

  it('redelivers the failed deliveries of a range typed on the clock, and says how many', async () => {
    const user = userEvent.setup();
    const requests = endpointBff((method, path) =>
      method === 'POST' && path === `/api/webhooks/${ENDPOINT_ID}/redeliver`
        ? json(200, { redelivered: 3 })
        : undefined,
    );
    renderWithProviders(<DeliveryLog endpointId={ENDPOINT_ID} timeZone="Europe/Berlin" />);
    await typeDateTime(user, 'From', {
      year: '2026',
      month: '11',
      day: '28',
      hour: '09',
      minute: '30',
    });
    await typeDateTime(user, 'To', {
      year: '2026',
      month: '11',
      day: '29',
      hour: '13',
      minute: '00',
    });
    await user.click(screen.getByRole('button', { name: 'Redeliver failed deliveries' }));
    expect(await screen.findByText('3 failed deliveries queued again.')).toBeTruthy();
    expect(requests.find((request) => request.method === 'POST')).toMatchObject({
      path: `/api/webhooks/${ENDPOINT_ID}/redeliver`,
      body: { from: '2026-11-28T08:30:00Z', to: '2026-11-29T12:00:00Z' },
    });
  });

  it('refuses a range that ends before it starts, sending nothing', async () => {
    const user = userEvent.setup();
    const requests = endpointBff();
    renderWithProviders(<DeliveryLog endpointId={ENDPOINT_ID} timeZone="UTC" />);
    await typeDateTime(user, 'From', { year: '2026', month: '11', day: '29', hour: '12' });
    await typeDateTime(user, 'To', { year: '2026', month: '11', day: '28', hour: '12' });
    await user.click(screen.getByRole('button', { name: 'Redeliver failed deliveries' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The range must end after it starts.',
    );
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(0);
  });
});
