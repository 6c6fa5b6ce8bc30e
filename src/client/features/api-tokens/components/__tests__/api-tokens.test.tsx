import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ApiToken } from '#domain/api-tokens.ts';
import { json, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { TokenList } from '../token-list.tsx';
import { TokenMaker } from '../token-maker.tsx';

const SECRET = `pdk_0123456789abcdef_${'a'.repeat(43)}`;

const token: ApiToken = {
  id: '0123456789abcdef',
  name: 'trading desk',
  region: 'eu',
  clientId: 'client',
  role: 'dispatcher',
  siteIds: ['PLANT-1'],
  createdAt: '2026-11-29T10:00:00.000Z',
  expiresAt: '2027-02-27T10:00:00.000Z',
  madeBy: 'Ada Admin',
  lastUsedAt: '2026-11-29T11:00:00.000Z',
};

describe('making an API token', () => {
  it('sends name, role, sites and expiry, and shows the secret once with a copy button', async () => {
    const user = userEvent.setup();
    const requests = stubFetch((request) =>
      request.method === 'POST'
        ? json(201, { token, secret: SECRET })
        : json(200, { tokens: [token] }),
    );
    renderWithProviders(<TokenMaker />);
    await user.type(screen.getByLabelText('Name'), 'trading desk');
    await user.selectOptions(screen.getByLabelText('Role'), 'dispatcher');
    await user.type(screen.getByLabelText('Sites (optional)'), 'PLANT-1');
    await user.selectOptions(screen.getByLabelText('Expires after'), '90');
    await user.click(screen.getByRole('button', { name: 'Make token' }));
    const shown = await screen.findByRole('status');
    expect(requests[0]).toMatchObject({
      method: 'POST',
      path: '/api/tokens',
      body: { name: 'trading desk', role: 'dispatcher', siteIds: ['PLANT-1'], expiresInDays: 90 },
    });
    expect(shown.textContent).toContain('shown this once and cannot be read again');
    expect(within(shown).getByLabelText('Token secret').textContent).toBe(SECRET);
    await user.click(within(shown).getByRole('button', { name: 'Copy token' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    expect(within(shown).getByRole('button', { name: 'Copied' })).toBeTruthy();
    await user.click(within(shown).getByRole('button', { name: 'I have kept it' }));
    expect(screen.queryByText(SECRET)).toBeNull();
  });

  it('words a site list that is not Plant IDs, sending nothing', async () => {
    const requests = stubFetch(() => json(201, { token, secret: SECRET }));
    renderWithProviders(<TokenMaker />);
    await userEvent.type(screen.getByLabelText('Name'), 'desk');
    await userEvent.type(screen.getByLabelText('Sites (optional)'), 'PLANT/1');
    await userEvent.click(screen.getByRole('button', { name: 'Make token' }));
    expect(await screen.findByText(/Sites are Plant IDs/)).toBeTruthy();
    expect(requests).toHaveLength(0);
  });
});

describe('the list of API tokens', () => {
  it('shows role, sites, maker, expiry and last use, and revokes only after confirmation', async () => {
    const requests = stubFetch(() =>
      json(200, { ...token, revokedAt: '2026-11-29T12:00:00.000Z', revokedBy: 'Ada Admin' }),
    );
    renderWithProviders(
      <TokenList tokens={[token]} nowMs={Date.parse('2026-11-29T12:00:00.000Z')} />,
    );
    const row = screen.getByRole('row', { name: /trading desk/ });
    expect(row.textContent).toContain('dispatcher');
    expect(row.textContent).toContain('PLANT-1');
    expect(row.textContent).toContain('Ada Admin');
    expect(row.textContent).toContain('UTC 2026-11-29 11:00');
    await userEvent.click(within(row).getByRole('button', { name: 'Revoke trading desk' }));
    const dialog = await screen.findByRole('alertdialog', {
      name: 'Revoke the token "trading desk"?',
    });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Keep token' }));
    expect(requests).toHaveLength(0);
    await userEvent.click(within(row).getByRole('button', { name: 'Revoke trading desk' }));
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Revoke token' }),
    );
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]).toMatchObject({ method: 'DELETE', path: '/api/tokens/0123456789abcdef' });
  });

  it('says an expired token is expired, with nothing to revoke', () => {
    renderWithProviders(
      <TokenList tokens={[token]} nowMs={Date.parse('2027-03-01T00:00:00.000Z')} />,
    );
    const row = screen.getByRole('row', { name: /trading desk/ });
    expect(row.textContent).toContain('expired');
    expect(within(row).queryByRole('button')).toBeNull();
  });
});
