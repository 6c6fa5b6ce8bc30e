import { describe, expect, it } from 'vitest';
import { planGhosts } from '../routes/plan-ghosts.ts';
import { TWO_ZONE_SITES } from '../../testing/test-devices.ts';

const sites = TWO_ZONE_SITES;

describe('planGhosts', () => {
  it('makes a ghost of every row with a window, refused ones with their reasons, and keeps only the plan devices', () => {
    const plan = planGhosts(
      [
        {
          line: 2,
          deviceId: 'BAT-EU-001-A',
          command: {
            powerControl: { targetBatteryPowerW: 3000 },
            startTime: '2026-11-24T18:00:00Z',
            endTime: '2026-11-24T19:00:00Z',
          },
          window: {
            startMs: Date.parse('2026-11-24T18:00:00Z'),
            endMs: Date.parse('2026-11-24T19:00:00Z'),
          },
        },
        {
          line: 3,
          deviceId: 'BAT-EU-001-A',
          reasons: ['end must be after start', 'its window starts in the past'],
          window: {
            startMs: Date.parse('2026-11-24T17:00:00Z'),
            endMs: Date.parse('2026-11-24T17:30:00Z'),
          },
        },
        // Its times could not be read: only the table names it.
        { line: 4, deviceId: 'BAT-AU-001-A', reasons: ['start "soon" is not a date and time'] },
      ],
      sites,
    );
    expect(plan.sites.map((site) => site.devices.map((d) => d.deviceId))).toEqual([
      ['BAT-EU-001-A'],
    ]);
    // From 17:00 to 19:00: two hours after the first start, in three quarters of the view.
    expect(plan.firstView).toEqual({
      atMs: Date.parse('2026-11-24T17:00:00Z'),
      spanMs: ((2 * 3_600_000) / 0.75) * 1.1,
    });
    expect(plan.byDevice.get('BAT-EU-001-A')).toEqual([
      expect.objectContaining({
        name: 'Plan line 3',
        refusal: 'end must be after start; its window starts in the past',
      }),
      expect.objectContaining({
        name: 'Plan line 2',
        powerControl: { targetBatteryPowerW: 3000 },
      }),
    ]);
    expect(plan.byDevice.get('BAT-EU-001-A')?.[1]).not.toHaveProperty('refusal');
  });
});
