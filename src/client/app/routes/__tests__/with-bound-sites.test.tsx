import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Site } from '#domain/device.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { WithBoundSites } from '../with-bound-sites.tsx';
import { harbourPlant } from '#client/testing/test-devices.ts';

const SITE: Site = harbourPlant();

/** A fake BFF whose `GET /api/sites` answers each time with the next of `answers`. */
function sitesAnswering(...answers: (() => Response)[]) {
  return stubFetch((request) => {
    if (`${request.method} ${request.path}` !== 'GET /api/sites')
      return problem(404, 'not_found', `no route ${request.path}`);
    const answer = answers.shift();
    if (!answer) throw new Error('GET /api/sites asked more often than the test expects');
    return answer();
  });
}

const gated = (
  <WithBoundSites emptyHeading={<h1>Timeline</h1>}>
    {(sites) => (
      <ul aria-label="Bound sites">
        {sites.map((site) => (
          <li key={site.siteId}>{site.siteId}</li>
        ))}
      </ul>
    )}
  </WithBoundSites>
);

describe('WithBoundSites', () => {
  it('says it is loading, then hands the bound sites to the page', async () => {
    sitesAnswering(() => json(200, { sites: [SITE] }));
    renderWithProviders(gated);

    expect(screen.getByRole('status').textContent).toContain('Loading sites');
    const list = await screen.findByRole('list', { name: 'Bound sites' });
    expect(within(list).getByText('PLANT-EU-001')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Timeline' })).toBeNull();
  });

  it('without a bound site, points to the Sites page instead of the page, under the heading given', async () => {
    sitesAnswering(() => json(200, { sites: [] }));
    renderWithProviders(gated);

    expect(await screen.findByText(/No site is bound yet/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sites' }).getAttribute('href')).toBe('/sites');
    expect(screen.getByRole('heading', { name: 'Timeline' })).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Bound sites' })).toBeNull();
  });

  it('shows why the sites could not be read, and reads them again on Try again', async () => {
    const requests = sitesAnswering(
      () => problem(503, 'upstream_unreachable', 'The vendor cannot be reached.'),
      () => json(200, { sites: [SITE] }),
    );
    const user = userEvent.setup();
    renderWithProviders(gated);

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not load the bound sites.');
    expect(screen.queryByRole('list', { name: 'Bound sites' })).toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('list', { name: 'Bound sites' })).toBeTruthy();
    expect(requests).toHaveLength(2);
  });
});
