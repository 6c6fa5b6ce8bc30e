import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installDesignTokens } from '#client/testing/design-tokens.ts';
import { stubElementWidth } from '#client/testing/element-width.ts';
import { minuteSamples, verdictRecord } from '#client/testing/verdict-records.ts';
import '#client/testing/render.tsx';
import { PowerSocChart } from '../power-soc-chart.tsx';

const ADELAIDE = 'Australia/Adelaide';
// 10:00–11:00 and 12:00–12:30 UTC on 2026-11-20: 20:30–21:30 and 22:30–23:00 in Adelaide (UTC+10:30).
const delivered = verdictRecord({
  commandId: 'cmd_a',
  startTime: '2026-11-20T10:00:00Z',
  endTime: '2026-11-20T11:00:00Z',
});
const charging = verdictRecord(
  {
    commandId: 'cmd_b',
    startTime: '2026-11-20T12:00:00Z',
    endTime: '2026-11-20T12:30:00Z',
    powerControl: { targetBatteryPowerW: -3000 },
    samples: minuteSamples('2026-11-20T12:00:00Z', '2026-11-20T12:30:00Z', 0, 40, 0),
  },
  { verdict: 'notFollowing', commandedEnergyWh: -1500, deliveredEnergyWh: 0 },
);

let removeTokens = () => {};
beforeEach(() => {
  removeTokens = installDesignTokens();
  stubElementWidth(900);
});
afterEach(() => removeTokens());

describe('PowerSocChart', () => {
  it('draws each window as a band with its commanded step, the measured power and the state of charge', async () => {
    const { container } = render(
      <PowerSocChart records={[charging, delivered]} timeZone={ADELAIDE} />,
    );
    await waitFor(() => expect(container.querySelector('svg.recharts-surface')).not.toBeNull());
    expect(container.querySelectorAll('.recharts-reference-area')).toHaveLength(2);
    for (const line of ['commanded-power-line', 'measured-power-line', 'measured-soc-line'])
      expect(container.querySelector(`.${line} path.recharts-curve`)?.getAttribute('d')).toMatch(
        /^M/,
      );
    expect(container.textContent).toContain('↑ discharging');
    expect(container.textContent).toContain('↓ charging');
    expect(container.textContent).toContain('Battery power (kW)');
    expect(container.textContent).toContain('State of charge (%)');
  });

  it('says the chart in words and tabulates each window on the site clock', async () => {
    const user = userEvent.setup();
    render(<PowerSocChart records={[charging, delivered]} timeZone={ADELAIDE} />);
    const chart = screen.getByRole('figure', { name: 'Battery power and state of charge' });
    expect(chart.querySelector('figcaption')?.textContent).toBe(
      '2 command windows from 2026-11-20 20:30 to 23:00 (Australia/Adelaide): 1 delivered, 1 not following. ' +
        'Measured battery power from 0 kW to 4.9 kW discharge; state of charge from 40% to 60%.',
    );
    await user.click(within(chart).getByText('The windows as a table'));
    const rows = within(chart).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringMatching(
        /^2026-11-20 20:30–21:30UTC 2026-11-20 10:00–11:005 kW discharge4.9 kW discharge60% to 42.3%Delivered/,
      ),
      expect.stringMatching(
        /^2026-11-20 22:30–23:00UTC 2026-11-20 12:00–12:303 kW charge0 kW40% to 40%Not following/,
      ),
    ]);
  });

  it('shows a window in words when reached by the arrow keys', async () => {
    const { container } = render(<PowerSocChart records={[delivered]} timeZone={ADELAIDE} />);
    const plot = screen.getByRole('img', { name: /1 command window; arrow keys show each window/ });
    await waitFor(() => expect(container.querySelector('.recharts-reference-area')).not.toBeNull());
    plot.focus();
    await waitFor(() => {
      fireEvent.keyDown(plot, { key: 'ArrowRight' });
      expect(screen.getByRole('tooltip').textContent).toContain('Verdict: Delivered');
    });
    expect(screen.getByRole('tooltip').textContent).toContain(
      '4.9 kWh discharged of 5 kWh commanded (98%)',
    );
  });
});
