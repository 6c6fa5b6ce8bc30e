import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { isOwnSignOutReturn } from '../../lib/sign-out-state.ts';
import { SignInRefusal } from '../sign-in-refusal.tsx';

const LOGOUT_URL = 'https://id.example.com/logout?state=state-1';

afterEach(() => sessionStorage.clear());

describe('a refused company sign-in', () => {
  it('says what happened and what to do, and signs out of the company account', async () => {
    const requests = stubFetch(() => json(200, { logoutUrl: LOGOUT_URL, state: 'state-1' }));
    const onLeave = vi.fn();
    renderWithProviders(<SignInRefusal refusal="no_role" onLeave={onLeave} />);

    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(
      'Your account has no powerdeck role',
    );
    const alert = screen.getByRole('alert');
    expect(alert.className).toContain('notice-error');
    expect(alert.textContent).toContain('holds none of the powerdeck roles');
    expect(alert.textContent).toContain('Nobody was signed in to powerdeck.');
    expect(alert.textContent).toContain('Ask your administrator to give you a role');
    await waitFor(() => expect(document.activeElement).toBe(alert));

    const signOut = screen.getByRole('button', { name: 'Sign out of your company account' });
    // Without a role, signing out of the company account is the way on.
    expect(signOut.className).toContain('primary');
    await userEvent.click(signOut);
    await waitFor(() => expect(onLeave).toHaveBeenCalledWith(LOGOUT_URL));
    expect(requests).toMatchObject([{ method: 'DELETE', path: '/api/session' }]);
    expect(requests[0]?.headers.get('X-CSRF')).toBe('1');
    // The state the IdP brings back is kept for the sign-in page's check.
    expect(isOwnSignOutReturn('state-1')).toBe(true);
  });

  it('words the provider’s refusal of powerdeck’s client for whoever configures it', () => {
    stubFetch(() => json(200, {}));
    renderWithProviders(<SignInRefusal refusal="invalid_client" onLeave={vi.fn()} />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('refused powerdeck’s client ID or secret');
    expect(alert.textContent).toContain('OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
    expect(alert.textContent).not.toMatch(/invalid_client|token endpoint|HTTP|POST/);
    expect(
      screen.getByRole('button', { name: 'Sign out of your company account' }).className,
    ).not.toContain('primary');
  });

  it('offers no sign-out when the company sign-in cannot be reached', () => {
    stubFetch(() => json(200, {}));
    renderWithProviders(<SignInRefusal refusal="idp_unreachable" onLeave={vi.fn()} />);
    expect(screen.getByRole('alert').textContent).toContain('could not reach');
    expect(screen.queryByRole('button', { name: /Sign out/ })).toBeNull();
  });

  it('says so when the company sign-in offers no sign-out', async () => {
    stubFetch(() => json(200, {}));
    const onLeave = vi.fn();
    renderWithProviders(<SignInRefusal refusal="no_role" onLeave={onLeave} />);
    await userEvent.click(screen.getByRole('button', { name: 'Sign out of your company account' }));
    expect((await screen.findByRole('status')).textContent).toContain(
      'offers powerdeck no way to sign you out',
    );
    expect(onLeave).not.toHaveBeenCalled();
  });
});
