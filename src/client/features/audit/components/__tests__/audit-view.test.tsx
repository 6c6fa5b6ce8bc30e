import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeCommandBff } from '#client/testing/fake-command-bff.ts';
import { renderApp } from '#client/testing/render.tsx';
import { harbourPlant } from '#client/testing/test-devices.ts';

describe('audit filters in the URL', () => {
  it('opens with the filters of a shared link and keeps every change in the URL', async () => {
    const { requests } = fakeCommandBff({
      sites: [harbourPlant()],
      nowIso: '2026-11-25T10:00:00Z',
    });
    const { router } = renderApp('/audit?action=cancel&from=2026-11-20');
    const action = await screen.findByLabelText('Action');
    expect((action as HTMLSelectElement).value).toBe('cancel');
    expect((screen.getByLabelText('From (UTC day)') as HTMLInputElement).value).toBe('2026-11-20');
    await waitFor(() =>
      expect(
        requests.some(
          (request) =>
            request.path === '/api/ledger' &&
            request.search.get('kind') === 'cancel' &&
            request.search.get('from') === '2026-11-20T00:00:00.000Z',
        ),
      ).toBe(true),
    );

    fireEvent.change(action, { target: { value: 'submit' } });
    // Shown at once, before the URL's navigation settles: the choice never springs back.
    expect((action as HTMLSelectElement).value).toBe('submit');
    fireEvent.change(screen.getByLabelText('To (UTC day, included)'), {
      target: { value: '2026-11-25' },
    });
    await waitFor(() =>
      expect(router.state.location.search).toBe('?action=submit&from=2026-11-20&to=2026-11-25'),
    );
    expect((screen.getByLabelText('Action') as HTMLSelectElement).value).toBe('submit');

    // A link followed while on the page: its filters are read again.
    await router.navigate('/audit?action=bind');
    await waitFor(() =>
      expect((screen.getByLabelText('Action') as HTMLSelectElement).value).toBe('bind'),
    );
    expect((screen.getByLabelText('To (UTC day, included)') as HTMLInputElement).value).toBe('');
  });
});
