import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { Site } from '#domain/device.ts';
import { json, problem, stubFetch } from '../../testing/fake-fetch.ts';
import { renderApp } from '../../testing/render.tsx';
import { harbourPlant } from '../../testing/test-devices.ts';

const SMALL: Site = harbourPlant();

const LARGE: Site = {
  siteId: 'PLANT-EU-100',
  name: 'Leipzig Solar Park',
  timeZone: 'Europe/Berlin',
  clock: { source: 'inferred', vendorOffset: '+01:00' },
  devices: Array.from({ length: 60 }, (_, i) => {
    const n = String(i + 1).padStart(2, '0');
    return {
      deviceId: `BAT-EU-100-${n}`,
      name: `Rack ${n} battery`,
      model: 'PD-20',
      capabilities: {},
      online: true,
    };
  }),
};

/** A fake BFF, signed in, with the given sites bound; `down` makes GET /api/sites answer 503. */
function fakeBff(bound: Site[]) {
  const state = { down: false, bound: [...bound] };
  stubFetch((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /api/session') return json(200, { region: 'eu', clientId: 'demo-eu' });
    if (route === 'GET /api/sites')
      return state.down
        ? problem(503, 'unavailable', 'The upstream is unavailable.')
        : json(200, { sites: state.bound });
    if (route === 'POST /api/sites') {
      const { siteId } = request.body as { siteId: string };
      const site = [SMALL, LARGE].find((s) => s.siteId === siteId);
      if (!site) return problem(404, 'not_found', `Site ${siteId} does not exist in this region.`);
      state.bound = [...state.bound.filter((s) => s.siteId !== siteId), site];
      return json(201, site);
    }
    return problem(404, 'not_found', `no route ${route}`);
  });
  return state;
}

afterEach(() => sessionStorage.clear());

describe('sites page', () => {
  it('folds a long site by default, unfolds it, filters its devices with true counts, and remembers', async () => {
    fakeBff([SMALL, LARGE]);
    const user = userEvent.setup();
    const first = renderApp('/sites');
    const large = await screen.findByRole('region', { name: /PLANT-EU-100/ });
    const small = screen.getByRole('region', { name: /PLANT-EU-001/ });
    expect(within(small).getByRole('link', { name: 'BAT-EU-001-A' })).toBeTruthy();
    expect(within(large).queryAllByRole('row')).toHaveLength(0);

    const show = within(large).getByRole('button', { name: 'Show 60 devices' });
    expect(show.getAttribute('aria-expanded')).toBe('false');
    await user.click(show);
    expect(
      within(large).getByRole('button', { name: 'Hide devices' }).getAttribute('aria-expanded'),
    ).toBe('true');
    expect(within(large).getAllByRole('row')).toHaveLength(61);
    expect(within(large).getByRole('status').textContent).toBe('All 60 devices');

    await user.type(within(large).getByRole('combobox', { name: 'Filter devices' }), '-42');
    // The open suggestion list hides the page from assistive technology; close it first.
    await user.keyboard('{Escape}');
    await waitFor(() =>
      expect(within(large).getByRole('status').textContent).toBe('Showing 1 of 60 devices'),
    );
    expect(within(large).getAllByRole('link', { name: /^BAT-EU-100-/ })).toHaveLength(1);
    // The small site has no filter: its one device is enough to read.
    expect(within(small).queryByRole('combobox')).toBeNull();

    first.unmount();
    renderApp('/sites');
    const again = await screen.findByRole('region', { name: /PLANT-EU-100/ });
    expect(within(again).getByRole('button', { name: 'Hide devices' })).toBeTruthy();
  });

  it('clears an old bind refusal when the site ID changes, and focuses each outcome', async () => {
    fakeBff([]);
    const user = userEvent.setup();
    renderApp('/sites');
    const siteId = await screen.findByLabelText('Site ID');
    await user.type(siteId, 'PLANT-NOPE');
    await user.click(screen.getByRole('button', { name: 'Bind' }));
    const refusal = await screen.findByRole('alert');
    expect(refusal.textContent).toContain('Site PLANT-NOPE does not exist in this region.');
    await waitFor(() => expect(document.activeElement).toBe(refusal));

    await user.click(siteId);
    await user.keyboard('{Backspace}');
    expect(screen.queryByRole('alert')).toBeNull();

    await user.clear(siteId);
    await user.click(screen.getByRole('button', { name: 'Bind' }));
    // A new attempt with an empty field: only its own problem shows.
    expect(await screen.findByText(/Enter the site ID/)).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();

    await user.type(siteId, 'PLANT-EU-001');
    await user.click(screen.getByRole('button', { name: 'Bind' }));
    const heading = await screen.findByRole('heading', { name: /PLANT-EU-001/ });
    await waitFor(() => expect(document.activeElement).toBe(heading));
  });

  it('keeps the list when a refresh fails and says since when it is shown', async () => {
    const bff = fakeBff([SMALL]);
    const { queryClient } = renderApp('/sites');
    expect(await screen.findByRole('region', { name: /PLANT-EU-001/ })).toBeTruthy();
    expect(screen.queryByText(/Could not refresh/)).toBeNull();

    bff.down = true;
    await act(() => queryClient.refetchQueries({ queryKey: ['sites'] }));
    const notice = await screen.findByText(/Could not refresh the site list/);
    expect(notice.closest('[role="status"]')?.textContent).toContain(
      "the vendor's service is not answering",
    );
    expect(notice.closest('[role="status"]')?.textContent).toMatch(/Showing the site list as of/);
    expect(screen.getByRole('region', { name: /PLANT-EU-001/ })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();

    bff.down = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again now' }));
    await waitFor(() => expect(screen.queryByText(/Could not refresh/)).toBeNull());
  });
});
