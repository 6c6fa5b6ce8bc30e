import { describe, expect, it } from 'vitest';
import {
  checkPlan,
  groupPlanIntoBatches,
  type PlanContext,
  type PlanRowInput,
} from '../dispatch-plan.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const range = {
  targetBatteryPowerW: { min: -5000, max: 5000 },
  chargeCutoffSocPercent: { min: 50, max: 100 },
};
const context: PlanContext = {
  devices: new Map([
    ['D-1', { capabilities: range, timeZone: 'UTC' }],
    ['D-2', { capabilities: range, timeZone: 'UTC' }],
    ['D-3', { capabilities: { targetBatteryPowerW: { min: -1000, max: 1000 } }, timeZone: 'UTC' }],
  ]),
  commands: new Map([
    [
      'D-2',
      [{ status: 'received', startTime: '2030-01-01T10:00:00Z', endTime: '2030-01-01T11:00:00Z' }],
    ],
  ]),
  nowMs: NOW,
  parseTime: (cell) => (/Z$/.test(cell) ? Date.parse(cell) : Number.NaN),
};
const row = (
  line: number,
  deviceId: string,
  start: string,
  end: string,
  power = '2000',
): PlanRowInput => ({
  line,
  deviceId,
  start: `2030-01-01T${start}:00Z`,
  end: `2030-01-01T${end}:00Z`,
  controls: { targetBatteryPowerW: power },
});

describe('checkPlan', () => {
  it('accepts rows that fit and names every refused row with its reasons', () => {
    const check = checkPlan(
      [
        row(2, 'D-1', '10:00', '11:00'),
        row(3, 'D-1', '10:30', '11:30'), // overlaps line 2
        row(4, 'D-1', '11:00', '12:00'), // touches line 2: fine
        row(5, 'D-2', '10:30', '12:00'), // overlaps the active command
        row(6, 'D-3', '10:00', '11:00', '3000'), // outside D-3's range
        row(7, 'D-9', '10:00', '11:00'), // not bound
        {
          line: 8,
          deviceId: 'D-1',
          start: '2029-12-31T10:00:00Z',
          end: '2029-12-31T11:00:00Z',
          controls: { targetBatteryPowerW: '1' },
        },
        {
          line: 9,
          deviceId: 'D-1',
          start: 'tomorrow',
          end: '2030-01-02T11:00:00Z',
          controls: { targetBatteryPowerW: 'x' },
        },
        {
          line: 10,
          deviceId: 'D-1',
          start: '2030-01-03T10:00:00Z',
          end: '2030-01-03T11:00:00Z',
          controls: { siteExportLimitW: '100' },
        },
      ],
      context,
    );
    expect(check.accepted.map((r) => r.line)).toEqual([2, 4]);
    const reasons = Object.fromEntries(check.refused.map((r) => [r.line, r.reasons.join('; ')]));
    expect(reasons[3]).toContain('overlaps line 2');
    expect(reasons[5]).toContain('overlaps a command of this device that is waiting to start');
    expect(reasons[6]).toContain(
      'Target battery power must be between -1000 and 1000 W on this device',
    );
    expect(reasons[7]).toContain('not in a bound site');
    expect(reasons[8]).toContain('in the past');
    expect(reasons[9]).toContain('not a date and time');
    expect(reasons[9]).toContain(
      'Target battery power "x": type a power in W or kW, like 5000 or 5 kW',
    );
    // A cell not read is not also reported as no control set.
    expect(reasons[9]).not.toContain('Set at least one');
    expect(reasons[10]).toContain('does not support a site export limit');
    // Every reason in the product's words: no field names of the API.
    for (const reason of Object.values(reasons))
      expect(reason).not.toMatch(/[a-z](Battery|Cutoff|Limit|Control)/);
    expect(check.accepted[0]?.command).toEqual({
      powerControl: { targetBatteryPowerW: 2000 },
      startTime: '2030-01-01T10:00:00.000Z',
      endTime: '2030-01-01T11:00:00.000Z',
    });
  });
});

describe('checkPlan on values', () => {
  it('reads powers in kW and words schema refusals with the range and unit', () => {
    const check = checkPlan(
      [
        { ...row(2, 'D-1', '10:00', '11:00'), controls: { targetBatteryPowerW: '2.5 kW' } },
        { ...row(3, 'D-2', '12:00', '13:00'), controls: { chargeCutoffSocPercent: '101' } },
        { ...row(4, 'D-2', '14:00', '15:00'), controls: {} },
      ],
      context,
    );
    expect(check.accepted[0]?.command.powerControl).toEqual({ targetBatteryPowerW: 2500 });
    expect(check.refused).toEqual([
      { line: 3, deviceId: 'D-2', reasons: ['Charge cut-off SoC must be between 5% and 100%'] },
      {
        line: 4,
        deviceId: 'D-2',
        reasons: [
          'Set at least one power control: target battery power, a SoC cut-off or a site limit',
        ],
      },
    ]);
  });
});

describe('checkPlan on a plan sent again', () => {
  it('recognises rows the devices already hold as sent, not as overlaps', () => {
    const held = {
      ...context,
      commands: new Map([
        [
          'D-1',
          [
            {
              status: 'received' as const,
              startTime: '2030-01-01T10:00:00.000Z',
              endTime: '2030-01-01T11:00:00.000Z',
              powerControl: { targetBatteryPowerW: 2000 },
            },
          ],
        ],
      ]),
    };
    const check = checkPlan(
      [row(2, 'D-1', '10:00', '11:00'), row(3, 'D-2', '12:00', '13:00')],
      held,
    );
    expect(check.accepted.map((r) => r.line)).toEqual([3]);
    expect(check.refused).toEqual([
      { line: 2, deviceId: 'D-1', reasons: ['already sent: the device holds this command'] },
    ]);
  });
});

describe('groupPlanIntoBatches', () => {
  it('puts rows that share a command in batches of at most 50, in order of first appearance', () => {
    const devices = Array.from({ length: 120 }, (_, i) => `D-${i}`);
    const command = (power: number) => ({
      powerControl: { targetBatteryPowerW: power },
      startTime: '2030-01-01T10:00:00.000Z',
      endTime: '2030-01-01T11:00:00.000Z',
    });
    const batches = groupPlanIntoBatches([
      ...devices.map((deviceId, i) => ({ line: i + 2, deviceId, command: command(1000) })),
      { line: 200, deviceId: 'D-0', command: command(-1000) },
    ]);
    expect(batches.map((b) => b.deviceIds.length)).toEqual([50, 50, 20, 1]);
    expect(batches[3]?.command.powerControl).toEqual({ targetBatteryPowerW: -1000 });
  });
});
