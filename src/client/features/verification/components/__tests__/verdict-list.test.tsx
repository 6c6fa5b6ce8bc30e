import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { verdictRecord } from '#client/testing/verdict-records.ts';
import '#client/testing/render.tsx';
import { VerdictList } from '../verdict-list.tsx';

const ADELAIDE = 'Australia/Adelaide';
const NEWEST = verdictRecord(
  {
    commandId: 'cmd_new',
    startTime: '2026-11-20T12:00:00Z',
    endTime: '2026-11-20T12:30:00Z',
    status: 'cancelled',
    cancelReason: 'deviceFault',
    powerControl: { targetBatteryPowerW: -3000, chargeCutoffSocPercent: 90 },
  },
  {
    verdict: 'cancelled',
    commandedEnergyWh: -1500,
    deliveredEnergyWh: -400,
    coverage: 0.27,
    samples: { expected: 30, present: 8, following: 8, limitedBySoc: 0, limitedBySiteLimit: 0 },
    alarms: [{ alarmCode: 'E042', alarmName: 'Battery over temperature' }],
  },
);
const OLDER = verdictRecord({
  commandId: 'cmd_old',
  startTime: '2026-11-20T10:00:00Z',
  endTime: '2026-11-20T11:00:00Z',
});
const LIMITS_ONLY = verdictRecord(
  {
    commandId: 'cmd_limits',
    startTime: '2026-11-19T10:00:00Z',
    endTime: '2026-11-19T11:00:00Z',
    powerControl: { siteExportLimitW: 2000 },
    samples: undefined,
  },
  {
    verdict: 'noData',
    commandedEnergyWh: null,
    deliveredEnergyWh: null,
    coverage: 0,
    samples: { expected: 60, present: 0, following: 0, limitedBySoc: 0, limitedBySiteLimit: 0 },
  },
);

describe('VerdictList', () => {
  it('says when no verdict came yet', () => {
    render(<VerdictList records={[]} timeZone={ADELAIDE} />);
    expect(screen.getByText(/a verdict comes a minute after a command's window ends/)).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it("lists each command's window on the site clock, its power control, verdict, energy and share measured", () => {
    render(<VerdictList records={[NEWEST, OLDER, LIMITS_ONLY]} timeZone={ADELAIDE} />);
    const table = screen.getByRole('table', { name: 'Verdicts, newest window first' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual([
      'Window (Australia/Adelaide)',
      'Power control',
      'Verdict',
      'Delivered against commanded',
      'Measured',
    ]);
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) =>
        within(row)
          .getAllByRole('cell')
          .map((cell) => cell.textContent),
      );
    expect(rows).toEqual([
      [
        '2026-11-20 22:30–23:00UTC 2026-11-20 12:00–12:30',
        '3 kW charge, stop charging at 90%',
        'CancelledAlarm: Battery over temperature',
        '0.4 kWh charged of 1.5 kWh commanded (27%)',
        '27%8 of 30 samples',
      ],
      [
        '2026-11-20 20:30–21:30UTC 2026-11-20 10:00–11:00',
        '5 kW discharge',
        'Delivered',
        '4.9 kWh discharged of 5 kWh commanded (98%)',
        '100%60 of 60 samples',
      ],
      [
        '2026-11-19 20:30–21:30UTC 2026-11-19 10:00–11:00',
        'export limit 2 kW',
        'No data',
        'Nothing measured; limits only',
        '0%0 of 60 samples',
      ],
    ]);
    expect(screen.getByText('What the verdicts mean')).toBeTruthy();
  });

  it('offers to chart one window and marks the charted one', async () => {
    const user = userEvent.setup();
    const onChart = vi.fn();
    render(
      <VerdictList
        records={[NEWEST, OLDER]}
        timeZone={ADELAIDE}
        chartedCommandId="cmd_old"
        onChart={onChart}
      />,
    );
    const buttons = screen.getAllByRole('button', { name: /^Chart this window/ });
    expect(buttons.map((button) => button.getAttribute('aria-pressed'))).toEqual(['false', 'true']);
    await user.click(
      screen.getByRole('button', { name: 'Chart this window, 2026-11-20 22:30–23:00' }),
    );
    expect(onChart).toHaveBeenCalledWith('cmd_new');
  });
});
