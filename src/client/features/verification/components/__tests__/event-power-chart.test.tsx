import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventPowerCurve } from '#domain/fleet-power.ts';
import { installDesignTokens } from '#client/testing/design-tokens.ts';
import { stubElementWidth } from '#client/testing/element-width.ts';
import '#client/testing/render.tsx';
import { EventPowerChart } from '../event-power-chart.tsx';

const FROM_MS = Date.parse('2026-11-23T09:00:00Z');
const STEP_MS = 300_000;
const TO_MS = FROM_MS + 4 * STEP_MS;
/** 400 devices commanded 5 kW each (2 MW) for 20 minutes: 300 give 5 kW, 100 are silent. */
const POINTS = eventPowerCurve(
  Array.from({ length: 400 }, (_, index) => ({
    commandedW: 5000,
    fromMs: FROM_MS,
    toMs: TO_MS,
    samples:
      index < 300
        ? [0, 1, 2, 3].map((step) => ({
            // Stamped at the end of the step's period, as the vendor stamps a sample.
            atMs: FROM_MS + (step + 1) * STEP_MS,
            batteryPowerW: 5000,
            socPercent: 50,
            gridPowerW: 0,
            pvPowerW: 0,
          }))
        : [],
  })),
  FROM_MS,
  TO_MS,
  STEP_MS,
);

let removeTokens = () => {};
beforeEach(() => {
  removeTokens = installDesignTokens();
  stubElementWidth(800);
});
afterEach(() => removeTokens());

describe('EventPowerChart', () => {
  it('draws commanded and delivered power as step lines in MW', async () => {
    const { container } = render(
      <EventPowerChart points={POINTS} stepMs={STEP_MS} timeZone="Europe/Berlin" />,
    );
    await waitFor(() => expect(container.querySelector('svg.recharts-surface')).not.toBeNull());
    for (const line of ['event-commanded-line', 'event-delivered-line'])
      expect(container.querySelector(`.${line} path.recharts-curve`)?.getAttribute('d')).toMatch(
        /^M/,
      );
    expect(container.textContent).toContain('Power (MW), discharging above 0');
    expect(screen.getByRole('list', { name: 'Legend' }).textContent).toBe(
      'CommandedDelivered (measured)',
    );
  });

  it('says the event in words and tabulates each step on the site clock with UTC', async () => {
    const user = userEvent.setup();
    render(<EventPowerChart points={POINTS} stepMs={STEP_MS} timeZone="Europe/Berlin" />);
    const chart = screen.getByRole('figure', { name: 'Commanded against delivered power' });
    expect(chart.querySelector('figcaption')?.textContent).toBe(
      'From 2026-11-23 10:00 to 10:20 (Europe/Berlin): 0.5 MWh delivered of 0.67 MWh commanded (75%); ' +
        'commanded at most 2 MW discharge. At least 300 devices measured in each step.',
    );
    await user.click(within(chart).getByText('The steps as a table'));
    const rows = within(chart).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(4);
    expect(rows[0]?.textContent).toBe(
      '2026-11-23 10:00UTC 2026-11-23 09:002 MW discharge1.5 MW discharge300',
    );
  });

  it('says there is nothing to chart for an event without steps', () => {
    render(<EventPowerChart points={[]} stepMs={STEP_MS} timeZone="UTC" />);
    expect(screen.getByRole('figure').textContent).toContain('No step of the event to chart.');
    expect(screen.queryByRole('img')).toBeNull();
  });
});
