import { describe, expect, it } from 'vitest';
import { DeviceCommandSchema } from '../../../../../domain/command.ts';
import type { Capabilities } from '../../../../../domain/device.ts';
import { buildCommandFormSchema, type CommandFormValues } from '../command-form-schema.ts';

const CAPABILITIES: Capabilities = {
  targetBatteryPowerW: { min: -5000, max: 5000 },
  chargeCutoffSocPercent: { min: 50, max: 100 },
  dischargeCutoffSocPercent: { min: 0, max: 50 },
  siteImportLimitW: { min: 0, max: 20000 },
};
const NOW = Date.parse('2026-01-01T00:00:00Z');

function parse(values: Partial<CommandFormValues>, timeZone = 'UTC') {
  const schema = buildCommandFormSchema({ capabilities: CAPABILITIES, timeZone, now: () => NOW });
  return schema.safeParse({
    powerControl: {
      targetBatteryPowerW: '',
      chargeCutoffSocPercent: '',
      dischargeCutoffSocPercent: '',
      siteImportLimitW: '',
      siteExportLimitW: undefined,
      ...values.powerControl,
    },
    start: values.start ?? '2026-11-21T10:00',
    end: values.end ?? '2026-11-21T11:00',
  });
}

function messagesAt(result: ReturnType<typeof parse>, path: string): string[] {
  if (result.success) return [];
  return result.error.issues.filter((i) => i.path.join('.') === path).map((i) => i.message);
}

describe('command form schema', () => {
  it('asks for at least one power control, on the power-control group', () => {
    const result = parse({});
    expect(result.success).toBe(false);
    expect(messagesAt(result, 'powerControl')).toEqual([
      'Set at least one power control: a command without one is refused (spec 2.1).',
    ]);
  });

  it("checks each value against the device's range and names the range", () => {
    const result = parse({
      powerControl: { targetBatteryPowerW: '6000', chargeCutoffSocPercent: '40' },
    });
    expect(messagesAt(result, 'powerControl.targetBatteryPowerW')).toEqual([
      'Target battery power must be between -5000 and 5000 W on this device (you entered 6000)',
    ]);
    expect(messagesAt(result, 'powerControl.chargeCutoffSocPercent')).toEqual([
      'Charge cut-off SoC must be between 50% and 100% on this device (you entered 40)',
    ]);
    expect(messagesAt(result, 'powerControl')).toEqual([]);
  });

  it('accepts the ends of a range and refuses one step beyond', () => {
    expect(parse({ powerControl: { targetBatteryPowerW: '-5000' } }).success).toBe(true);
    expect(parse({ powerControl: { targetBatteryPowerW: '5000' } }).success).toBe(true);
    expect(parse({ powerControl: { targetBatteryPowerW: '5001' } }).success).toBe(false);
    expect(parse({ powerControl: { dischargeCutoffSocPercent: '0' } }).success).toBe(true);
  });

  it('refuses fractions and a control the device lacks', () => {
    expect(
      messagesAt(
        parse({ powerControl: { targetBatteryPowerW: '1.5' } }),
        'powerControl.targetBatteryPowerW',
      ),
    ).toEqual(['Target battery power must be a whole number of W']);
    expect(
      messagesAt(
        parse({ powerControl: { siteExportLimitW: '100' } }),
        'powerControl.siteExportLimitW',
      ),
    ).toEqual(['This device does not support Site export limit']);
  });

  it('wants the end after the start, and a start that is not past', () => {
    const same = parse({
      powerControl: { targetBatteryPowerW: '1000' },
      start: '2026-11-21T10:00',
      end: '2026-11-21T10:00',
    });
    expect(messagesAt(same, 'end')).toEqual(['End must be after start']);
    const past = parse({
      powerControl: { targetBatteryPowerW: '1000' },
      start: '2025-12-31T23:00',
      end: '2026-01-01T01:00',
    });
    expect(messagesAt(past, 'start')).toEqual(['Start is in the past: choose a time from now on']);
    expect(
      messagesAt(parse({ powerControl: { targetBatteryPowerW: '1' }, start: '' }), 'start'),
    ).toEqual(['Enter the start date and time']);
  });

  it('reports every problem at once', () => {
    const result = parse({ start: '2026-11-21T10:00', end: '2026-11-21T09:00' });
    expect(messagesAt(result, 'powerControl')).toHaveLength(1);
    expect(messagesAt(result, 'end')).toHaveLength(1);
  });

  it('turns values and the Adelaide window into a valid device command in UTC', () => {
    const result = parse(
      {
        powerControl: { targetBatteryPowerW: ' -3000 ', chargeCutoffSocPercent: '90' },
        start: '2026-11-21T11:30',
        end: '2026-11-21T12:30',
      },
      'Australia/Adelaide',
    );
    expect(result.success && result.data).toEqual({
      powerControl: { targetBatteryPowerW: -3000, chargeCutoffSocPercent: 90 },
      startTime: '2026-11-21T01:00:00Z',
      endTime: '2026-11-21T02:00:00Z',
    });
    expect(DeviceCommandSchema.safeParse(result.data).success).toBe(true);
  });

  it('measures a window across the Berlin spring-forward day in real hours', () => {
    const result = parse(
      {
        powerControl: { siteImportLimitW: '0' },
        start: '2026-03-29T01:00',
        end: '2026-03-29T04:00',
      },
      'Europe/Berlin',
    );
    expect(result.success && [result.data.startTime, result.data.endTime]).toEqual([
      '2026-03-29T00:00:00Z',
      '2026-03-29T02:00:00Z',
    ]);
  });
});
