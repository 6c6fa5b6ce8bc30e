import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Role } from '#domain/roles.ts';
import type { WebhookEndpoint } from '#domain/webhooks.ts';
import { json, noContent, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderApp } from '#client/testing/render.tsx';
// Loaded ahead: the lazy route transforms on first use, which a loaded machine makes slow.
import '#client/app/routes/webhooks.tsx';

const SECRET = `whsec_${'B'.repeat(32)}`;
const endpoint: WebhookEndpoint = {
  id: 'ep_0123456789abcdef',
  url: 'http://127.0.0.1:9999/hook',
  description: '',
  eventTypes: ['fleetJob.ended'],
  siteIds: [],
  enabled: true,
  createdAt: '2026-11-29T09:00:00.000Z',
  madeBy: 'Ada Admin',
};

/** A company sign-in with `role`, and a BFF whose webhooks start empty and hold what is added. */
function signedInAs(role: Role) {
  let endpoints: WebhookEndpoint[] = [];
  const requests = stubFetch((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session')
      return json(200, {
        region: 'eu',
        operator: { issuer: 'https://id.example.com', subject: 'u-1', name: 'Ada Admin' },
        operatorName: 'Ada Admin',
        role,
      });
    if (route === 'GET /api/connections/eu') return json(200, { region: 'eu', registered: true });
    if (route === 'GET /api/webhooks') return json(200, { endpoints });
    if (route === 'POST /api/webhooks') {
      endpoints = [endpoint];
      return json(201, { endpoint, secret: SECRET });
    }
    if (route === `GET /api/webhooks/${endpoint.id}`) return json(200, endpoint);
    if (route === `DELETE /api/webhooks/${endpoint.id}`) {
      endpoints = [];
      return noContent();
    }
    if (route === `GET /api/webhooks/${endpoint.id}/deliveries`)
      return json(200, { deliveries: [] });
    return problem(404, 'not_found', `no route ${route}`);
  });
  return requests;
}

describe('the Webhooks page', () => {
  it("is linked beside Tokens in an administrator's account menu: add, keep the secret, open, delete", async () => {
    const user = userEvent.setup();
    signedInAs('admin');
    renderApp('/overview');
    await user.click(await screen.findByRole('button', { name: /^Account:/ }));
    const account = await screen.findByRole('navigation', { name: 'Account' });
    expect(within(account).getByRole('link', { name: 'Tokens' })).toBeTruthy();
    await user.click(within(account).getByRole('link', { name: 'Webhooks' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Webhooks' })).toBeTruthy();
    expect(await screen.findByText(/No endpoints yet/)).toBeTruthy();

    await user.type(screen.getByLabelText('Address'), endpoint.url);
    await user.click(screen.getByRole('checkbox', { name: /A fleet job ended/ }));
    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));
    const shown = await screen.findByRole('status', { name: /You will not see it again/ });
    await user.click(within(shown).getByRole('button', { name: 'I have kept it' }));

    const heading = await screen.findByRole('heading', { name: `Endpoint ${endpoint.url}` });
    await waitFor(() => expect(document.activeElement).toBe(heading));
    expect(screen.getByRole('row', { name: new RegExp(endpoint.url) })).toBeTruthy();
    expect(await screen.findByText(/Nothing delivered yet/)).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Delete endpoint' }));
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', {
        name: 'Delete endpoint',
      }),
    );
    const list = await screen.findByRole('heading', { name: 'Endpoints' });
    await waitFor(() => expect(document.activeElement).toBe(list));
    expect(await screen.findByText(/No endpoints yet/)).toBeTruthy();
  });

  it('is neither linked nor usable for a dispatcher', async () => {
    const requests = signedInAs('dispatcher');
    renderApp('/webhooks');
    expect(
      await screen.findByText('Only an administrator adds and changes webhooks.'),
    ).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Webhooks' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Tokens' })).toBeNull();
    expect(requests.some((request) => request.path === '/api/webhooks')).toBe(false);
  });
});
