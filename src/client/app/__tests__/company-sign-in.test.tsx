import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { Role } from '#domain/roles.ts';
import { json, problem, stubFetch, type RecordedRequest } from '../../testing/fake-fetch.ts';
import { renderApp } from '../../testing/render.tsx';
import { rememberSignOutState } from '../../features/session/lib/sign-out-state.ts';

afterEach(() => sessionStorage.clear());

/** A BFF in company sign-in mode where nobody is signed in. */
function signedOut() {
  return stubFetch((request) =>
    `${request.method} ${request.path}` === 'GET /api/session/mode'
      ? json(200, { mode: 'oidc' })
      : problem(401, 'not_signed_in', 'Sign in first.'),
  );
}

describe('the sign-in page in company sign-in', () => {
  it('shows a refusal in the product’s style, with the way out and the way back in', async () => {
    signedOut();
    renderApp('/sign-in?refused=no_role');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Your account has no powerdeck role' }),
    ).toBeTruthy();
    const page = screen.getByRole('main');
    expect(page.className).toContain('page-narrow');
    expect(within(page).getByRole('alert').className).toContain('notice');
    expect(screen.getByRole('button', { name: 'Sign out of your company account' })).toBeTruthy();
    const again = await screen.findByRole('region', { name: 'Sign in again' });
    expect(
      within(again)
        .getByRole('link', { name: 'Sign in with your company account' })
        .getAttribute('href'),
    ).toBe('/api/session/oidc?region=eu');
    expect(document.title).toBe('Your account has no powerdeck role · powerdeck');
  });

  it('shows the ordinary sign-in for an unknown refusal', async () => {
    signedOut();
    renderApp('/sign-in?refused=something-else');
    expect(await screen.findByRole('heading', { name: 'Sign in to powerdeck' })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says the company account is signed out when its own sign-out comes back, and only then', async () => {
    signedOut();
    rememberSignOutState('state-1');
    const { router } = renderApp('/sign-in?state=state-1');
    const notice = await screen.findByText(
      'You are signed out of powerdeck and of your company account.',
    );
    expect(notice.getAttribute('role')).toBe('status');
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('says nothing of a sign-out it did not start (an old or copied link)', async () => {
    signedOut();
    rememberSignOutState('state-1');
    const { router } = renderApp('/sign-in?state=someone-elses');
    expect(await screen.findByRole('link', { name: 'Sign in with your company account' }));
    expect(screen.queryByText(/You are signed out/)).toBeNull();
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });
});

/** A company sign-in with `role` in Europe, and whether Europe has its vendor connection. */
function signedInAs(role: Role, connection: { registered: boolean }) {
  return stubFetch((request: RecordedRequest) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session')
      return json(200, {
        region: 'eu',
        operator: { issuer: 'https://id.example.com', subject: 'u-1', name: 'Ada Admin' },
        operatorName: 'Ada Admin',
        role,
      });
    if (route === 'GET /api/connections/eu') return json(200, { region: 'eu', ...connection });
    if (route === 'GET /api/connections') return json(200, { connections: [] });
    if (route === 'GET /api/ledger') return json(200, { entries: [] });
    if (route === 'GET /api/sites') return json(200, { sites: [] });
    return problem(404, 'not_found', `no route ${route}`);
  });
}

describe('a region without a vendor connection', () => {
  it('leads an administrator to the Connections page, on every page that needs it', async () => {
    const requests = signedInAs('admin', { registered: false });
    const { router } = renderApp('/sites');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'No vendor connection for Europe yet' }),
    ).toBeTruthy();
    expect(screen.queryByText(/Could not load/)).toBeNull();
    expect(requests.some((request) => request.path === '/api/sites')).toBe(false);

    await userEvent.click(screen.getByRole('link', { name: 'Timeline' }));
    expect(
      await screen.findByRole('heading', { name: 'No vendor connection for Europe yet' }),
    ).toBeTruthy();
    await userEvent.click(screen.getByRole('link', { name: 'Register the Europe connection' }));
    expect(await screen.findByRole('heading', { name: 'Vendor connections' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/connections');
    // The page's heading comes before its connections are read: the forms follow.
    expect(await screen.findAllByRole('button', { name: 'Save connection' })).toHaveLength(2);
  });

  it('tells a dispatcher that only an administrator can register it, and keeps the Audit', async () => {
    signedInAs('dispatcher', { registered: false });
    renderApp('/batches');
    const heading = await screen.findByRole('heading', {
      name: 'No vendor connection for Europe yet',
    });
    const state = heading.closest('section');
    expect(state?.textContent).toContain('Only a powerdeck administrator can register it');
    expect(state?.textContent).toContain('carries on by itself');
    expect(screen.queryByRole('link', { name: /Register the/ })).toBeNull();

    await userEvent.click(screen.getByRole('link', { name: 'Audit' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Audit' })).toBeTruthy();
  });

  it('shows the page itself once the region has its connection', async () => {
    signedInAs('admin', { registered: true });
    renderApp('/sites');
    expect(await screen.findByRole('heading', { level: 1, name: 'Sites' })).toBeTruthy();
    expect(screen.queryByText(/No vendor connection/)).toBeNull();
  });
});
