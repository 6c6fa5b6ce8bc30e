import { describe, expect, it } from 'vitest';
import { PlanFileError, planTimeParser, readPlanFile } from '../plan-file.ts';

describe('readPlanFile', () => {
  it('reads CSV rows with their file lines and the clock each column says', () => {
    const plan = readPlanFile(
      'plan.csv',
      'deviceId,start_site,end_utc,targetBatteryPowerW\r\nBAT-1,2026-11-24 18:00,2026-11-24 18:00Z,3000\r\nBAT-2,2026-11-24 19:00,2026-11-24 19:00Z,\r\n',
    );
    expect(plan.clocks).toEqual({ start: 'site', end: 'utc' });
    expect(plan.rows).toEqual([
      {
        line: 2,
        deviceId: 'BAT-1',
        start: '2026-11-24 18:00',
        end: '2026-11-24 18:00Z',
        controls: { targetBatteryPowerW: '3000' },
      },
      {
        line: 3,
        deviceId: 'BAT-2',
        start: '2026-11-24 19:00',
        end: '2026-11-24 19:00Z',
        controls: {},
      },
    ]);
  });

  it('reads JSON rows, numbers included', () => {
    const plan = readPlanFile(
      'plan.json',
      JSON.stringify([
        {
          deviceId: 'BAT-1',
          start_utc: '2026-11-24T17:00Z',
          end_utc: '2026-11-24T18:00Z',
          targetBatteryPowerW: -500,
        },
      ]),
    );
    expect(plan.rows[0]).toMatchObject({ line: 1, controls: { targetBatteryPowerW: '-500' } });
  });

  it('refuses a file without a start column, saying how to name it', () => {
    expect(() => readPlanFile('p.csv', 'deviceId,start,end_utc\nBAT-1,x,y')).toThrow(
      new PlanFileError(
        "p.csv has no start column: name it start_utc (times in UTC) or start_site (times on the site's clock).",
      ),
    );
  });
});

describe('planTimeParser', () => {
  const parse = planTimeParser({ start: 'site', end: 'utc' });
  it('reads a site column on the site clock and a UTC column as UTC', () => {
    expect(parse('2026-11-24 18:00', 'start', 'Europe/Berlin')).toBe(
      Date.parse('2026-11-24T17:00:00Z'),
    );
    expect(parse('2026-11-24 18:00Z', 'end', 'Europe/Berlin')).toBe(
      Date.parse('2026-11-24T18:00:00Z'),
    );
  });
  it('refuses a UTC cell that does not say UTC', () => {
    expect(parse('2026-11-24 18:00', 'end', 'Europe/Berlin')).toBeNaN();
  });
});
