import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { ConnectionPanel } from '../connection-panel.tsx';

const current = {
  region: 'eu' as const,
  clientId: 'demo-eu',
  updatedAt: '2026-11-23T09:00:00.000Z',
  updatedBy: 'Ada Admin',
};

/** Types a client ID and secret into the panel's form as an admin does, then presses `button`. */
async function enterConnection(clientId: string, clientSecret: string, button: string) {
  await userEvent.type(screen.getByLabelText('Client ID'), clientId);
  await userEvent.type(screen.getByLabelText('Client secret'), clientSecret);
  await userEvent.click(screen.getByRole('button', { name: button }));
}

describe('a region’s vendor connection', () => {
  it('says what is registered, never the secret, and replaces it only after confirmation', async () => {
    const requests = stubFetch((request) =>
      request.method === 'PUT'
        ? json(200, { checked: true })
        : problem(404, 'not_found', 'no route'),
    );
    renderWithProviders(<ConnectionPanel region="eu" current={current} />);
    expect(screen.getByText(/registered UTC .* by Ada Admin/)).toBeTruthy();
    await enterConnection('demo-eu-2', 'new-secret', 'Replace connection');
    const dialog = await screen.findByRole('alertdialog', {
      name: 'Replace the Europe connection?',
    });
    expect(dialog.textContent).toContain('demo-eu will no longer be used');
    expect(requests).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Replace connection' }));
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]).toMatchObject({
      method: 'PUT',
      path: '/api/connections/eu',
      body: { clientId: 'demo-eu-2', clientSecret: 'new-secret' },
    });
    expect((await screen.findByRole('status')).textContent).toBe(
      'Saved and checked: the Europe token endpoint issued a token with it.',
    );
    expect((screen.getByLabelText('Client secret') as HTMLInputElement).value).toBe('');
  });

  it('checks the connection and words a refusal', async () => {
    stubFetch(() =>
      problem(
        502,
        'connection_refused',
        "The Europe token endpoint did not accept this connection's client ID or secret.",
      ),
    );
    renderWithProviders(<ConnectionPanel region="eu" current={current} />);
    await userEvent.click(screen.getByRole('button', { name: 'Check connection' }));
    expect((await screen.findByRole('alert')).textContent).toContain('did not accept');
  });

  it('says the token endpoint refused new credentials, which were not saved', async () => {
    stubFetch(() =>
      problem(
        422,
        'connection_refused',
        'The Australia token endpoint did not accept this client ID or secret, so the connection was not saved.',
      ),
    );
    renderWithProviders(<ConnectionPanel region="au" current={undefined} />);
    await enterConnection('demo-au', 'wrong', 'Save connection');
    expect((await screen.findByRole('alert')).textContent).toContain('was not saved');
    // Refused credentials are never offered to be saved all the same.
    expect(screen.queryByRole('button', { name: /Save without checking/ })).toBeNull();
    // Typing again clears the outcome of the last attempt.
    await userEvent.type(screen.getByLabelText('Client secret'), 'x');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('offers to save unchecked, after confirmation, when the token endpoint cannot be reached', async () => {
    const requests = stubFetch((request) => {
      const body = request.body as { saveUnchecked?: boolean };
      return body.saveUnchecked
        ? json(200, { checked: false })
        : problem(
            503,
            'connection_unchecked',
            'The Australia token endpoint could not be reached or failed, so this client ID and secret could not be checked, and the connection was not saved.',
          );
    });
    renderWithProviders(<ConnectionPanel region="au" current={undefined} />);
    await enterConnection('demo-au', 'demo-au-secret', 'Save connection');
    expect((await screen.findByRole('alert')).textContent).toContain('could not be checked');
    await userEvent.click(screen.getByRole('button', { name: 'Save without checking…' }));
    const dialog = await screen.findByRole('alertdialog', {
      name: 'Save the Australia connection without checking it?',
    });
    expect(dialog.textContent).toContain('every operator’s call in Australia is refused');
    expect(requests).toHaveLength(1);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save without checking' }));
    await waitFor(() => expect(requests).toHaveLength(2));
    expect(requests[1]?.body).toEqual({
      clientId: 'demo-au',
      clientSecret: 'demo-au-secret',
      saveUnchecked: true,
    });
    expect((await screen.findByRole('status')).textContent).toContain('Saved without a check');
  });

  it('invites the first registration when there is none', async () => {
    stubFetch(() => json(200, {}));
    renderWithProviders(<ConnectionPanel region="au" current={undefined} />);
    expect(screen.getByText(/operators cannot work in Australia/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Check connection' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Save connection' })).toBeTruthy();
  });
});
