import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Site } from '#domain/device.ts';
import {
  json,
  noContent,
  problem,
  stubFetch,
  type RecordedRequest,
} from '../../testing/fake-fetch.ts';
import { renderApp } from '../../testing/render.tsx';
import { BATTERY_A, harbourPlant } from '../../testing/test-devices.ts';

const SITE: Site = harbourPlant([
  BATTERY_A,
  { deviceId: 'BAT-EU-001-B', name: 'Battery B', model: 'PD-10', capabilities: {}, online: false },
]);

/** A fake BFF with one client (`demo-eu` / `demo-eu-secret`) and one bindable site. */
function fakeBff() {
  let signedIn = false;
  let bound: Site[] = [];
  return stubFetch((request: RecordedRequest) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session/mode') return json(200, { mode: 'credentials' });
    if (route === 'POST /api/session') {
      const body = request.body as { clientId: string; clientSecret: string; region: string };
      if (body.clientId !== 'demo-eu' || body.clientSecret !== 'demo-eu-secret')
        return problem(401, 'invalid_credentials', 'The token endpoint refused the client.');
      signedIn = true;
      return json(200, { region: body.region, clientId: body.clientId });
    }
    if (!signedIn) return problem(401, 'not_signed_in', 'Sign in first.');
    if (route === 'GET /api/session') return json(200, { region: 'eu', clientId: 'demo-eu' });
    if (route === 'DELETE /api/session') {
      signedIn = false;
      return noContent();
    }
    if (route === 'GET /api/sites') return json(200, { sites: bound });
    if (route === 'GET /api/overview') return json(200, emptyOverview());
    if (route === 'POST /api/sites') {
      const { siteId } = request.body as { siteId: string };
      if (siteId !== SITE.siteId)
        return problem(404, 'not_found', `Site ${siteId} does not exist in this region.`);
      const already = bound.length > 0;
      bound = [SITE];
      return json(already ? 200 : 201, SITE);
    }
    if (route === 'DELETE /api/sites/PLANT-EU-001') {
      bound = [];
      return noContent();
    }
    return problem(404, 'not_found', `no route ${route}`);
  });
}

/** An overview with nothing in it, as the BFF answers it for an account without commands. */
function emptyOverview() {
  return {
    region: 'eu',
    generatedAt: '2026-03-10T12:00:00.000Z',
    upcomingHours: 6,
    recentHours: 24,
    executing: [],
    upcoming: [],
    attention: [],
    cancelledByOperator: [],
    batches: [],
    fleetJobs: [],
    trouble: [],
    counts: {
      executing: 0,
      upcoming: 0,
      attention: 0,
      cancelledByOperator: 0,
      batches: 0,
      fleetJobs: 0,
      trouble: 0,
    },
  };
}

describe('sign-in and sites', () => {
  it('sends an unauthenticated visitor to the sign-in page', async () => {
    fakeBff();
    renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Sign in to powerdeck' })).toBeTruthy();
    expect(await screen.findByLabelText('Region')).toBeTruthy();
    expect(screen.getByRole('option', { name: 'Europe' })).toHaveProperty('value', 'eu');
    expect(screen.getByRole('option', { name: 'Australia' })).toHaveProperty('value', 'au');
    expect(screen.getByLabelText('Client secret')).toHaveProperty('type', 'password');
    expect(screen.getByLabelText('Client secret').getAttribute('autocomplete')).toBe('off');
  });

  it('says so when the client ID or secret is wrong, and forgets the typed secret', async () => {
    const requests = fakeBff();
    const user = userEvent.setup();
    const { queryClient } = renderApp('/sign-in');
    await user.type(await screen.findByLabelText('Client ID'), 'demo-eu');
    await user.type(screen.getByLabelText('Client secret'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('client ID or secret');
    expect(alert.textContent).toContain('Europe');
    expect(screen.getByLabelText('Client secret')).toHaveProperty('value', '');
    const signIn = requests.find((r) => r.method === 'POST');
    expect(signIn?.body).toEqual({ region: 'eu', clientId: 'demo-eu', clientSecret: 'wrong' });
    expect(JSON.stringify({ ...localStorage, ...sessionStorage })).not.toContain('wrong');
    const heldRequests = queryClient
      .getMutationCache()
      .getAll()
      .map((m) => m.state.variables);
    expect(JSON.stringify(heldRequests)).not.toContain('wrong');
  });

  it('words a refused sign-in from its code, never with the server text', async () => {
    const answers = [
      problem(429, 'too_many_sign_ins', 'Over 10 sign-ins per minute from 10.0.0.7 (limit).'),
      problem(504, 'token_endpoint_timeout', 'POST https://auth.example/token timed out'),
      problem(500, 'internal_error', 'TypeError at sessions.ts:118'),
    ];
    stubFetch((request) => {
      if (request.path === '/api/session/mode') return json(200, { mode: 'credentials' });
      if (request.method === 'POST') return answers.shift() ?? problem(500, 'internal_error', '?');
      return problem(401, 'not_signed_in', 'Sign in first.');
    });
    const user = userEvent.setup();
    renderApp('/sign-in');
    await user.type(await screen.findByLabelText('Client ID'), 'demo-eu');
    const said: string[] = [];
    for (let i = 0; i < 3; i++) {
      await user.type(screen.getByLabelText('Client secret'), 'secret');
      await user.click(screen.getByRole('button', { name: 'Sign in' }));
      await waitFor(() => expect(said).not.toContain(screen.getByRole('alert').textContent));
      said.push(screen.getByRole('alert').textContent ?? '');
    }

    expect(said[0]).toMatch(/^Sign-in paused: too many attempts/);
    expect(said[1]).toMatch(/^Sign-in failed: the Europe sign-in service did not answer in time/);
    expect(said[2]).toMatch(/^Sign-in failed: powerdeck could not sign you in just now/);
    for (const words of said) expect(words).not.toMatch(/10\.0\.0\.7|https:|TypeError|limit\)/);
  });

  it('moves focus to a refusal, so it is read first and Tab goes on to the fields', async () => {
    fakeBff();
    const user = userEvent.setup();
    renderApp('/sign-in');
    await user.type(await screen.findByLabelText('Client ID'), 'demo-eu');
    await user.type(screen.getByLabelText('Client secret'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    const alert = await screen.findByRole('alert');
    await waitFor(() => expect(document.activeElement).toBe(alert));
  });

  it('names the empty fields instead of sending them', async () => {
    const requests = fakeBff();
    const user = userEvent.setup();
    renderApp('/sign-in');
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Enter the client ID')).toBeTruthy();
    expect(screen.getByLabelText('Client ID').getAttribute('aria-invalid')).toBe('true');
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('signs in, binds and unbinds a site, and signs out', async () => {
    const requests = fakeBff();
    const user = userEvent.setup();
    const { router } = renderApp('/sign-in');

    await user.selectOptions(await screen.findByLabelText('Region'), 'Europe');
    await user.type(screen.getByLabelText('Client ID'), 'demo-eu');
    await user.type(screen.getByLabelText('Client secret'), 'demo-eu-secret');
    await user.type(screen.getByLabelText('Operator name (optional)'), 'Ada');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    // The app opens on the overview; the sites are one link away.
    expect(await screen.findByRole('heading', { name: 'Overview: Europe' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/overview');
    expect(await screen.findByText('No device command is in its window now.')).toBeTruthy();
    await user.click(
      within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Sites' }),
    );
    expect(await screen.findByRole('heading', { name: 'Sites' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/sites');
    expect(screen.getByRole('banner').textContent).toContain('demo-eu');
    expect(screen.getByRole('banner').textContent).toContain('Europe');
    expect(await screen.findByText(/No site is bound/)).toBeTruthy();

    const siteId = screen.getByLabelText('Site ID');
    expect(siteId.getAttribute('aria-describedby')).toBeTruthy();
    const hint = document.getElementById(siteId.getAttribute('aria-describedby') ?? '');
    expect(hint?.textContent).toBe("The Plant ID shown in the vendor's app, such as PLANT-EU-001");
    // The example lives in the hint: a greyed placeholder ID reads as a value already entered.
    expect(siteId.getAttribute('placeholder')).toBeNull();

    await user.type(siteId, 'PLANT-NOPE');
    await user.click(screen.getByRole('button', { name: 'Bind' }));
    expect((await screen.findByRole('alert')).textContent).toContain(
      'Site PLANT-NOPE does not exist in this region.',
    );

    await user.clear(siteId);
    await user.type(siteId, 'PLANT-EU-001');
    await user.click(screen.getByRole('button', { name: 'Bind' }));
    const region = await screen.findByRole('region', { name: /PLANT-EU-001/ });
    expect(within(region).getByRole('link', { name: 'BAT-EU-001-A' }).getAttribute('href')).toBe(
      '/sites/PLANT-EU-001/devices/BAT-EU-001-A',
    );
    expect(within(region).getByText('Europe/Berlin')).toBeTruthy();
    expect(within(region).getByText('offline')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();

    await user.click(within(region).getByRole('button', { name: 'Unbind' }));
    await user.click(await screen.findByRole('button', { name: 'Unbind site' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: /PLANT-EU-001/ })).toBeNull());
    const unbind = requests.find(
      (r) => r.method === 'DELETE' && r.path === '/api/sites/PLANT-EU-001',
    );
    expect(unbind).toBeDefined();

    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Sign in to powerdeck' })).toBeTruthy();
    expect(requests.some((r) => r.method === 'DELETE' && r.path === '/api/session')).toBe(true);
    expect(JSON.stringify({ ...localStorage, ...sessionStorage })).not.toContain('demo-eu-secret');
  });

  it('returns to the sign-in page, remembering the page, when the session has ended', async () => {
    fakeBff();
    const { router } = renderApp('/sites/PLANT-EU-001/devices/BAT-EU-001-A');
    expect(await screen.findByRole('heading', { name: 'Sign in to powerdeck' })).toBeTruthy();
    expect(router.state.location.search).toBe(
      `?next=${encodeURIComponent('/sites/PLANT-EU-001/devices/BAT-EU-001-A')}`,
    );
  });

  it('offers the company account instead of the credentials form in company sign-in', async () => {
    stubFetch((request) =>
      `${request.method} ${request.path}` === 'GET /api/session/mode'
        ? json(200, { mode: 'oidc' })
        : problem(401, 'not_signed_in', 'Sign in first.'),
    );
    renderApp('/sign-in');
    const link = await screen.findByRole('link', { name: 'Sign in with your company account' });
    expect(link.getAttribute('href')).toBe('/api/session/oidc?region=eu');
    await userEvent.selectOptions(screen.getByLabelText('Region'), 'Australia');
    expect(link.getAttribute('href')).toBe('/api/session/oidc?region=au');
    expect(screen.queryByLabelText('Client secret')).toBeNull();
  });

  it('hides binding from a viewer and says why, and names the person and role', async () => {
    stubFetch((request) => {
      const route = `${request.method} ${request.path}`;
      if (route === 'GET /api/session')
        return json(200, {
          region: 'eu',
          operator: { issuer: 'https://id.example.com', subject: 'u-1', name: 'Vera Viewer' },
          operatorName: 'Vera Viewer',
          role: 'viewer',
        });
      if (route === 'GET /api/sites') return json(200, { sites: [SITE] });
      return problem(404, 'not_found', `no route ${route}`);
    });
    renderApp('/sites');
    expect(
      await screen.findByText(/You are signed in as a viewer; only an administrator may manage/),
    ).toBeTruthy();
    expect(screen.queryByLabelText('Site ID')).toBeNull();
    expect(await screen.findByRole('heading', { name: /Harbour plant/ })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Unbind' })).toBeNull();
    const who = screen.getByLabelText('Signed in');
    expect(within(who).getByText('Vera Viewer')).toBeTruthy();
    expect(within(who).getByText('viewer')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Connections' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Audit' })).toBeTruthy();
  });
});
