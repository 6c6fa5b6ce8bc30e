import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Site } from '#domain/device.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderApp } from '#client/testing/render.tsx';
import { harbourPlant } from '#client/testing/test-devices.ts';

const SITE: Site = harbourPlant();
const PATH = '/sites/PLANT-EU-001/devices/BAT-EU-001-A/history';

function fakeBff(history: () => Response) {
  return stubFetch((request) => {
    if (request.path === '/api/session') return json(200, { region: 'eu', clientId: 'demo-eu' });
    if (request.path === '/api/sites') return json(200, { sites: [SITE] });
    if (request.path === '/api/ledger') return problem(404, 'not_found', 'No such route.');
    return history();
  });
}

describe('history route', () => {
  it('refuses a shared link over 30 days with the reason and asks nothing of the upstream', async () => {
    const requests = fakeBff(() => json(200, { commands: [] }));
    renderApp(`${PATH}?range=custom&from=2026-09-01T00:00:00Z&to=2026-10-02T00:00:00Z`);
    const alert = await screen.findByRole('alert', {}, { timeout: 5000 });
    expect(alert.textContent).toMatch(/31 days long.*at most 30 days/);
    expect(requests.some((r) => r.path.endsWith('/commands'))).toBe(false);
  });

  it('says the site must be bound again when the history answers 403 site_not_bound', async () => {
    fakeBff(() => problem(403, 'site_not_bound', 'Site PLANT-EU-001 is not bound.'));
    renderApp(`${PATH}?range=24h`);
    const alert = await screen.findByRole('alert', {}, { timeout: 5000 });
    expect(alert.textContent).toMatch(/must be bound again/);
  });

  it('says what to do when the range holds no commands', async () => {
    fakeBff(() => json(200, { commands: [] }));
    renderApp(`${PATH}?range=7d`);
    expect(await screen.findByText(/Choose a longer range/, {}, { timeout: 5000 })).toBeTruthy();
  });
});
