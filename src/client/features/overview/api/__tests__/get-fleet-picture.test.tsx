import { screen, within } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetPicture } from '#domain/fleet-picture.ts';
import type { Overview } from '#domain/overview.ts';
import { CLIENT_ERROR_CODES } from '#client/lib/api-error.ts';
import { installDesignTokens } from '#client/testing/design-tokens.ts';
import { json, problem, stubFetch } from '#client/testing/fake-fetch.ts';
import { createTestQueryClient, renderApp } from '#client/testing/render.tsx';
import { fleetPictureKeys } from '../fleet-picture-keys.ts';
import { fleetPictureQueryOptions } from '../get-fleet-picture.ts';

const PICTURE: FleetPicture = {
  generatedAt: '2026-03-10T12:00:00.000Z',
  snapshotAt: '2026-03-10T11:59:00.000Z',
  devices: { total: 2, reporting: 2, silent: 0 },
  power: { dischargingW: 2500, chargingW: 0, pvW: 0, gridImportW: 0, gridExportW: 0 },
  energy: { storedKwh: 10, capacityKwh: 20 },
  socBands: [0, 0, 0, 0, 2, 0, 0, 0, 0, 0],
  sites: [],
  running: [],
  attention: [],
  counts: { sites: 0, attention: 0 },
};

const OVERVIEW: Overview = {
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

describe("the fleet picture's read", () => {
  it("asks for the region's picture and parses it with the domain's schema", async () => {
    const requests = stubFetch(() => json(200, PICTURE));
    const queryClient = createTestQueryClient();
    const options = fleetPictureQueryOptions('au');
    expect(options.queryKey).toEqual(fleetPictureKeys.region('au'));
    await expect(queryClient.fetchQuery(options)).resolves.toEqual(PICTURE);
    expect(requests.map((r) => `${r.path}?${r.search.toString()}`)).toEqual([
      '/api/fleet-picture?region=au',
    ]);
  });

  it('refuses an answer that is not a fleet picture', async () => {
    stubFetch(() => json(200, { ...PICTURE, socBands: [1, 2, 3] }));
    await expect(
      createTestQueryClient().fetchQuery(fleetPictureQueryOptions('eu')),
    ).rejects.toMatchObject({ code: CLIENT_ERROR_CODES.unexpectedResponse });
  });
});

describe('the overview with its fleet picture', () => {
  // The state of charge chart reads its colours from the tokens, as main.tsx loads them.
  let removeTokens: () => void;
  beforeAll(() => {
    removeTokens = installDesignTokens();
  });
  afterAll(() => removeTokens());

  const bff = (picture: () => Response) =>
    stubFetch((request) => {
      if (request.path === '/api/session') return json(200, { region: 'eu', clientId: 'demo-eu' });
      if (request.path === '/api/overview') return json(200, OVERVIEW);
      if (request.path === '/api/fleet-picture') return picture();
      return problem(404, 'not_found', `no route ${request.path}`);
    });

  it('shows the fleet now first, then the lists of commands', async () => {
    bff(() => json(200, PICTURE));
    renderApp('/overview');
    const fleet = await screen.findByRole('region', { name: 'The fleet now' });
    expect(fleet.textContent).toContain('Discharging now');
    expect(fleet.textContent).toContain('2.5 kW');
    const executing = await screen.findByRole('region', { name: /^Executing now/ });
    // The picture comes before the lists in the document, so it is what shows above the fold.
    expect(
      fleet.compareDocumentPosition(executing) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
  });

  it('says the picture could not be loaded and keeps the lists when its read fails', async () => {
    bff(() => problem(503, 'upstream_unavailable', 'down'));
    renderApp('/overview');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not load the fleet picture.');
    expect(within(alert).getByRole('button', { name: /Try again/ })).toBeTruthy();
    expect(await screen.findByRole('region', { name: /^Executing now/ })).toBeTruthy();
  });
});
