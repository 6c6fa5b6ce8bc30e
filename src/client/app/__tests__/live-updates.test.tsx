import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Notification } from '#domain/notifications.ts';
import { openedEventSource, stubEventSource } from '../../testing/fake-event-source.ts';
import { json, problem, stubFetch, type RecordedRequest } from '../../testing/fake-fetch.ts';
import { renderApp } from '../../testing/render.tsx';

const batchFailed: Notification = {
  id: '12',
  kind: 'batchDevicesFailed',
  title: 'Batch: 3 of 10 devices failed',
  body: 'Open the batch to see which devices failed and why; the other devices hold their command.',
  link: '/batches/batch_7',
  createdAt: '2026-05-01T10:00:00.000Z',
};
const cancelled: Notification = {
  id: '15',
  kind: 'commandCancelled',
  title: 'Command on BAT-EU-001-A cancelled: device fault',
  body: 'The device reported a fault, so its command was cancelled.',
  link: '/sites/PLANT-EU-001/devices/BAT-EU-001-A',
  timeZone: 'Europe/Berlin',
  window: { startTime: '2026-05-01T11:00:00.000Z', endTime: '2026-05-01T12:00:00.000Z' },
  createdAt: '2026-05-01T10:05:00.000Z',
};

/** A fake BFF, signed in, with an inbox the test fills; it records every request. */
function fakeBff(inbox: Notification[]) {
  const state = { inbox: [...inbox] };
  const requests: RecordedRequest[] = stubFetch((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session')
      return json(200, { region: 'eu', clientId: 'demo-eu', operatorName: 'Alice' });
    if (route === 'GET /api/sites') return json(200, { sites: [] });
    if (route === 'GET /api/notifications')
      return json(200, {
        notifications: state.inbox,
        unreadCount: state.inbox.filter((n) => !n.readAt).length,
      });
    if (route === 'POST /api/notifications/read') {
      const body = request.body as { ids?: string[]; all?: boolean; throughId?: string };
      state.inbox = state.inbox.map((n) =>
        (body.ids?.includes(n.id) ?? (body.all && Number(n.id) <= Number(body.throughId)))
          ? { ...n, readAt: '2026-05-01T10:10:00.000Z' }
          : n,
      );
      return json(200, { unreadCount: state.inbox.filter((n) => !n.readAt).length });
    }
    if (route === 'GET /api/ledger') return json(200, { entries: [] });
    return problem(404, 'not_found', `no route ${route}`);
  });
  const inboxReads = () => requests.filter((r) => r.path === '/api/notifications').length;
  return { state, requests, inboxReads };
}

const bell = () => screen.getByRole('button', { name: /^Notifications/ });

beforeEach(() => {
  stubEventSource();
});

describe('live updates in the signed-in layout', () => {
  it('shows the unread count on the bell and updates it from a pushed event, without a reload', async () => {
    const bff = fakeBff([]);
    renderApp('/sites');
    await waitFor(() => expect(bff.inboxReads()).toBe(1));
    expect(bell().getAttribute('aria-label')).toBe('Notifications');
    const source = await openedEventSource();
    expect(source.url).toBe('/api/events');
    source.send({ type: 'ready', id: '40' }, '40');

    bff.state.inbox = [cancelled, batchFailed];
    source.send(
      {
        id: '41',
        type: 'notificationCreated',
        data: { notificationId: '15' },
        createdAt: '2026-05-01T10:05:00.000Z',
      },
      '41',
    );
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 2 unread'));
    expect(within(bell()).getByText('2')).toBeTruthy();
    expect(screen.getByText('2 new notifications')).toBeTruthy();
    // One read at the start, one for the event: not a poll per second.
    expect(bff.inboxReads()).toBe(2);
  });

  it('says quietly that live updates are off while the stream is down, and nothing once it is back', async () => {
    fakeBff([]);
    renderApp('/sites');
    await screen.findByRole('button', { name: /^Notifications/ });
    const source = await openedEventSource();
    source.send({ type: 'ready', id: '1' }, '1');
    expect(screen.queryByText('Live updates off')).toBeNull();
    source.fail('retrying');
    expect(screen.getByText('Live updates off')).toBeTruthy();
    source.send({ type: 'ready', id: '1' }, '1');
    expect(screen.queryByText('Live updates off')).toBeNull();
  });

  it('sends the operator to sign in when the session ends elsewhere', async () => {
    fakeBff([]);
    const app = renderApp('/batches');
    await screen.findByRole('button', { name: /^Notifications/ });
    (await openedEventSource()).send({ type: 'sessionEnded' });
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/sign-in'));
    expect(app.router.state.location.search).toBe('?next=%2Fbatches');
  });
});

describe('the notification inbox', () => {
  it('opens from the bell, lists notifications with their links and times, marks all read, and gives focus back', async () => {
    const bff = fakeBff([cancelled, batchFailed]);
    const user = userEvent.setup();
    renderApp('/sites');
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 2 unread'));
    await user.click(bell());
    const panel = await screen.findByRole('dialog', { name: 'Notifications' });
    expect(bell().getAttribute('aria-expanded')).toBe('true');
    const items = within(panel).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    const first = items[0];
    if (!first) throw new Error('no item');
    expect(within(first).getByText('Unread')).toBeTruthy();
    expect(
      within(first)
        .getByRole('link', { name: 'Command on BAT-EU-001-A cancelled: device fault' })
        .getAttribute('href'),
    ).toBe('/sites/PLANT-EU-001/devices/BAT-EU-001-A');
    // On the site's clock with UTC beside it.
    expect(
      within(first).getByText(
        'Window 2026-05-01 13:00–14:00 (Europe/Berlin), UTC 2026-05-01 11:00–12:00',
      ),
    ).toBeTruthy();
    expect(
      within(first).getByText('2026-05-01 12:05 (Europe/Berlin), UTC 2026-05-01 10:05'),
    ).toBeTruthy();
    expect(within(items[1] as HTMLElement).getByText('UTC 2026-05-01 10:00')).toBeTruthy();
    // Focus moved into the panel.
    expect(panel.contains(document.activeElement)).toBe(true);

    const markAll = within(panel).getByRole('button', { name: 'Mark all read' });
    await user.click(markAll);
    await waitFor(() => expect(within(panel).getByText('Nothing unread')).toBeTruthy());
    const post = bff.requests.find((r) => r.method === 'POST');
    expect(post?.body).toEqual({ all: true, throughId: '15' });
    expect(within(panel).queryByText('Unread')).toBeNull();
    expect(document.activeElement).toBe(markAll);
    expect(markAll.getAttribute('aria-disabled')).toBe('true');
    expect(bell().getAttribute('aria-label')).toBe('Notifications');

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog', { name: 'Notifications' })).toBeNull();
    expect(document.activeElement).toBe(bell());
  });

  it('marks a notification read when its link is followed, and goes there', async () => {
    const bff = fakeBff([batchFailed]);
    const user = userEvent.setup();
    const app = renderApp('/sites');
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 1 unread'));
    await user.click(bell());
    const panel = await screen.findByRole('dialog', { name: 'Notifications' });
    await user.click(within(panel).getByRole('link', { name: batchFailed.title }));
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/batches/batch_7'));
    expect(screen.queryByRole('dialog', { name: 'Notifications' })).toBeNull();
    await waitFor(() =>
      expect(bff.requests.find((r) => r.method === 'POST')?.body).toEqual({ ids: ['12'] }),
    );
  });

  it('says what it will hold when it is empty', async () => {
    fakeBff([]);
    const user = userEvent.setup();
    renderApp('/sites');
    await user.click(await screen.findByRole('button', { name: 'Notifications' }));
    const panel = await screen.findByRole('dialog', { name: 'Notifications' });
    expect(await within(panel).findByText('No notifications.')).toBeTruthy();
    expect(within(panel).queryByRole('button', { name: 'Mark all read' })).toBeNull();
    await act(async () => {
      await user.click(within(panel).getByRole('button', { name: 'Close' }));
    });
    expect(document.activeElement).toBe(bell());
  });
});
