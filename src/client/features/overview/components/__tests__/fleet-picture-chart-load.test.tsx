import { afterEach, expect, it, vi } from 'vitest';

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
