import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { openedEventSource, stubEventSource } from '../../testing/fake-event-source.ts';
import {
  json,
  noContent,
  problem,
  stubFetch,
  type RecordedRequest,
} from '../../testing/fake-fetch.ts';
import { renderApp } from '../../testing/render.tsx';

/**
 * A fake BFF, signed in until `DELETE /api/session` (or `endSession`), that records every
 * request; once signed out, every signed-in route answers 401 as the BFF does.
 */
function fakeBff() {
  let signedIn = true;
  const requests = stubFetch((request: RecordedRequest) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session/mode') return json(200, { mode: 'credentials' });
    if (!signedIn) return problem(401, 'not_signed_in', 'Sign in first.');
    if (route === 'GET /api/session')
      return json(200, { region: 'eu', clientId: 'demo-eu', operatorName: 'Alice' });
    if (route === 'DELETE /api/session') {
      signedIn = false;
      return noContent();
    }
    if (route === 'GET /api/sites') return json(200, { sites: [] });
    if (route === 'GET /api/notifications') return json(200, { notifications: [], unreadCount: 0 });
    if (route === 'GET /api/ledger') return json(200, { entries: [] });
    return problem(404, 'not_found', `no route ${route}`);
  });
  return {
    requests,
    endSession: () => {
      signedIn = false;
    },
  };
}

/** The requests made after the `index`th, but the sign-in page's own (its sign-in mode). */
const after = (requests: readonly RecordedRequest[], index: number) =>
  requests
    .slice(index + 1)
    .map((r) => `${r.method} ${r.path}`)
    .filter((route) => route !== 'GET /api/session/mode');

beforeEach(() => {
  stubEventSource();
});

describe('leaving the signed-in pages', () => {
  it('on sign-out, goes to the sign-in page before forgetting what the pages showed, so nothing is asked for again', async () => {
    const { requests } = fakeBff();
    const user = userEvent.setup();
    const app = renderApp('/sites');
    await screen.findByRole('button', { name: /^Notifications/ });
    await user.click(screen.getByRole('button', { name: 'Sign out' }));

    expect(await screen.findByLabelText('Client ID')).toBeTruthy();
    const signOut = requests.findIndex((r) => r.method === 'DELETE' && r.path === '/api/session');
    expect(signOut).toBeGreaterThanOrEqual(0);
    // A session or inbox read after the sign-out would be refused (401): a console error.
    expect(after(requests, signOut)).toEqual([]);
    expect(app.router.state.location.pathname).toBe('/sign-in');
    // Nothing of the signed-in pages is kept for the next person to sign in here.
    expect(app.queryClient.getQueryCache().findAll({ queryKey: ['session', 'current'] })).toEqual(
      [],
    );
    expect(app.queryClient.getQueryCache().findAll({ queryKey: ['notifications'] })).toEqual([]);
  });

  it('when the session ended elsewhere, goes to sign in (keeping the page) before forgetting, without asking again', async () => {
    const { requests, endSession } = fakeBff();
    const app = renderApp('/batches');
    await screen.findByRole('button', { name: /^Notifications/ });
    await screen.findByRole('heading', { name: 'Batches', level: 1 });
    // The page's own reads are done (its code and queries may come after the header under load):
    // only what the app asks after the session ended counts below.
    await waitFor(() => expect(app.queryClient.isFetching()).toBe(0));
    endSession();
    const ended = requests.length - 1;
    (await openedEventSource()).send({ type: 'sessionEnded' });

    await waitFor(() => expect(app.router.state.location.pathname).toBe('/sign-in'));
    expect(app.router.state.location.search).toBe('?next=%2Fbatches');
    expect(await screen.findByLabelText('Client ID')).toBeTruthy();
    expect(after(requests, ended)).toEqual([]);
    expect(app.queryClient.getQueryCache().findAll({ queryKey: ['session', 'current'] })).toEqual(
      [],
    );
  });
});
