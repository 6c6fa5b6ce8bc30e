import { screen } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { FleetPictureSchema } from '#domain/fleet-picture.ts';
import { renderWithProviders } from '#client/testing/render.tsx';

afterEach(() => {
  vi.doUnmock('../soc-chart.tsx');
  vi.resetModules();
});

// The picture's chart code is asked for with the overview's code, so it arrives while the
// picture's answer is on its way, not a fetch and an evaluation after the figures rendered
// (docs/architecture.md, Budgets).
it("asks for the state of charge chart's code when the overview's code loads, before any picture renders", async () => {
  const asked = vi.fn();
  vi.doMock('../soc-chart.tsx', () => {
    asked();
    return { SocChart: () => null };
  });
  await import('../fleet-picture.tsx');
  await vi.waitFor(() => expect(asked).toHaveBeenCalledTimes(1));
});

// Firefox fails a chunk's load when the page is left meanwhile, where Chromium drops it: the
// overview left at once after sign-in once logged the route's error from a rejected lazy load.
it("keeps the overview when the chart's code cannot load, and says so in the chart's place", async () => {
  vi.doMock('../soc-chart.tsx', () => {
    throw new Error('error loading dynamically imported module');
  });
  const { FleetPictureView } = await import('../fleet-picture.tsx');
  const picture = FleetPictureSchema.parse({
    generatedAt: '2026-03-10T12:00:00.000Z',
    snapshotAt: '2026-03-10T11:59:00.000Z',
    devices: { total: 10, reporting: 10, silent: 0 },
    power: { dischargingW: 5_000, chargingW: 0, pvW: 0, gridImportW: 0, gridExportW: 0 },
    energy: { storedKwh: 60, capacityKwh: 100 },
    socBands: [0, 0, 0, 0, 0, 10, 0, 0, 0, 0],
    sites: [],
    running: [],
    attention: [],
    counts: { sites: 0, attention: 0 },
  });
  renderWithProviders(<FleetPictureView picture={picture} />);
  expect((await screen.findByRole('status')).textContent).toContain('The chart could not load');
  expect(screen.getByRole('heading', { name: 'The fleet now' })).toBeTruthy();
  expect(screen.getByText('State of charge as a table')).toBeTruthy();
});
