import { describe, expect, it } from 'vitest';
import { DeviceCommandSchema } from '#domain/command.ts';
import type { Capabilities } from '#domain/device.ts';
import { combinedCapabilityCheck, deviceCapabilityCheck } from '../capability-checks.ts';
import { buildCommandFormSchema, type CommandFormValues } from '../command-form-schema.ts';
import { BATCH_OF_THREE, testDevice as device } from '#client/testing/test-devices.ts';
import { combineRanges } from '../combined-ranges.ts';

const CAPABILITIES: Capabilities = {
  targetBatteryPowerW: { min: -5000, max: 5000 },
  chargeCutoffSocPercent: { min: 50, max: 100 },
  dischargeCutoffSocPercent: { min: 0, max: 50 },
  siteImportLimitW: { min: 0, max: 20000 },
};
const NOW = Date.parse('2026-01-01T00:00:00Z');

function parse(values: Partial<CommandFormValues>) {
  const schema = buildCommandFormSchema({
    capabilityCheck: deviceCapabilityCheck(CAPABILITIES),
    now: () => NOW,
  });
  return schema.safeParse({
    powerControl: {
      targetBatteryPowerW: '',
      chargeCutoffSocPercent: '',
      dischargeCutoffSocPercent: '',
      siteImportLimitW: '',
      siteExportLimitW: undefined,
      ...values.powerControl,
    },
    start: values.start ?? '2026-11-21T10:00:00Z',
    end: values.end ?? '2026-11-21T11:00:00Z',
  });
}

function messagesAt(result: ReturnType<typeof parse>, path: string): string[] {
  if (result.success) return [];
  return result.error.issues.filter((i) => i.path.join('.') === path).map((i) => i.message);
}

describe('command form schema for one device', () => {
  it('asks for at least one power control, on the power-control group', () => {
    const result = parse({});
    expect(result.success).toBe(false);
    expect(messagesAt(result, 'powerControl')).toEqual([
      'Set at least one power control: a command without one is refused.',
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
    // The vendor's schema bounds a cut-off at 5 %, whatever the device's range says.
    expect(parse({ powerControl: { dischargeCutoffSocPercent: '5' } }).success).toBe(true);
    expect(parse({ powerControl: { dischargeCutoffSocPercent: '4' } }).success).toBe(false);
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
      start: '2026-11-21T10:00:00Z',
      end: '2026-11-21T10:00:00Z',
    });
    expect(messagesAt(same, 'end')).toEqual(['End must be after start']);
    const past = parse({
      powerControl: { targetBatteryPowerW: '1000' },
      start: '2025-12-31T23:00:00Z',
      end: '2026-01-01T01:00:00Z',
    });
    expect(messagesAt(past, 'start')).toEqual(['Start is in the past: choose a time from now on']);
    expect(
      messagesAt(parse({ powerControl: { targetBatteryPowerW: '1' }, start: '' }), 'start'),
    ).toEqual(['Enter the start date and time']);
  });

  it('reports every problem at once', () => {
    const result = parse({ start: '2026-11-21T10:00:00Z', end: '2026-11-21T09:00:00Z' });
    expect(messagesAt(result, 'powerControl')).toHaveLength(1);
    expect(messagesAt(result, 'end')).toHaveLength(1);
  });

  it('turns values and the window into a valid device command in UTC, whatever offset it came in', () => {
    const result = parse({
      powerControl: { targetBatteryPowerW: ' -3000 ', chargeCutoffSocPercent: '90' },
      start: '2026-11-21T11:30:00+10:30',
      end: '2026-11-21T02:00:00.000Z',
    });
    expect(result.success && result.data).toEqual({
      powerControl: { targetBatteryPowerW: -3000, chargeCutoffSocPercent: 90 },
      startTime: '2026-11-21T01:00:00Z',
      endTime: '2026-11-21T02:00:00Z',
    });
    expect(DeviceCommandSchema.safeParse(result.data).success).toBe(true);
  });
});

describe('command form schema for a batch', () => {
  const { wide, narrow, noExport } = BATCH_OF_THREE;
  const nowMs = Date.parse('2026-11-21T10:00:00Z');
  const schema = buildCommandFormSchema({
    capabilityCheck: combinedCapabilityCheck(combineRanges([wide, narrow, noExport])),
    now: () => nowMs,
  });
  const values = (powerControl: Record<string, string>) => ({
    powerControl,
    start: '2026-11-21T11:00:00Z',
    end: '2026-11-21T12:00:00Z',
  });
  const messageAt = (result: ReturnType<typeof schema.safeParse>, path: string) =>
    result.error?.issues.find((i) => i.path.join('.') === path)?.message;

  it('gives a device command in UTC when the value fits every device', () => {
    const result = schema.safeParse(values({ targetBatteryPowerW: '-2500' }));
    expect(result.success && result.data).toEqual({
      powerControl: { targetBatteryPowerW: -2500 },
      startTime: '2026-11-21T11:00:00Z',
      endTime: '2026-11-21T12:00:00Z',
    });
  });

  it('names the devices a value does not fit, with the range all of them accept', () => {
    const result = schema.safeParse(values({ targetBatteryPowerW: '4000' }));
    expect(result.success).toBe(false);
    expect(messageAt(result, 'powerControl.targetBatteryPowerW')).toBe(
      'Target battery power 4 kW is outside the range of device: BAT-B. Every selected device that supports it accepts -3 kW to 2 kW.',
    );
    expect(
      messageAt(
        schema.safeParse(values({ targetBatteryPowerW: '-5000' })),
        'powerControl.targetBatteryPowerW',
      ),
    ).toBe(
      'Target battery power -5 kW is outside the range of device: BAT-B. Every selected device that supports it accepts -3 kW to 2 kW.',
    );
  });

  it('counts the devices when several refuse, and says to split when none share a value', () => {
    const low = device('L', { siteImportLimitW: { min: 0, max: 100 } });
    const high = device('H', { siteImportLimitW: { min: 200, max: 300 } });
    const split = buildCommandFormSchema({
      capabilityCheck: combinedCapabilityCheck(combineRanges([low, high, wide])),
      now: () => nowMs,
    });
    const result = split.safeParse({
      powerControl: { siteImportLimitW: '150', targetBatteryPowerW: '6000' },
      start: '2026-11-21T12:00:00Z',
      end: '2026-11-21T13:00:00Z',
    });
    expect(messageAt(result, 'powerControl.siteImportLimitW')).toBe(
      'Site import limit 150 W is outside the range of 2 devices: L, H. The selected devices have no value in common: split the batch.',
    );
    expect(messageAt(result, 'powerControl.targetBatteryPowerW')).toContain(
      'is outside the range of device: BAT-A.',
    );
  });

  it('leaves a control some devices lack to the pre-check, not to the form', () => {
    expect(schema.safeParse(values({ siteExportLimitW: '1000' })).success).toBe(true);
  });

  it('keeps the single-device checks: at least one control, whole numbers, window order', () => {
    const empty = schema.safeParse(values({}));
    expect(empty.error?.issues.map((i) => i.path.join('.'))).toContain('powerControl');
    const fraction = schema.safeParse(values({ targetBatteryPowerW: '1.5' }));
    expect(fraction.error?.issues[0]?.message).toBe(
      'Target battery power must be a whole number of W',
    );
    const backwards = schema.safeParse({
      ...values({ targetBatteryPowerW: '1' }),
      end: '2026-11-21T10:00:00Z',
    });
    expect(backwards.error?.issues.map((i) => i.message)).toContain('End must be after start');
    const past = schema.safeParse({
      ...values({ targetBatteryPowerW: '1' }),
      start: '2026-11-21T09:00:00Z',
    });
    expect(past.error?.issues.map((i) => i.message)).toContain(
      'Start is in the past: choose a time from now on',
    );
  });
});

describe('command form schema with a window check', () => {
  const checked: { startMs: number; endMs: number }[] = [];
  const schema = buildCommandFormSchema({
    capabilityCheck: deviceCapabilityCheck(CAPABILITIES),
    now: () => NOW,
    windowCheck: (window) => {
      checked.push(window);
      return window.startMs < Date.parse('2026-11-21T11:00:00Z') ? 'Refused: overlaps cmd_1' : null;
    },
  });
  const values = (start: string, end: string) => ({
    powerControl: { targetBatteryPowerW: '1000' },
    start,
    end,
  });

  it('reports the refusal on the start and passes a window it accepts', () => {
    const refused = schema.safeParse(values('2026-11-21T10:00:00Z', '2026-11-21T12:00:00Z'));
    expect(messagesAt(refused, 'start')).toEqual(['Refused: overlaps cmd_1']);
    expect(schema.safeParse(values('2026-11-21T11:00:00Z', '2026-11-21T12:00:00Z')).success).toBe(
      true,
    );
    expect(checked.at(-1)).toEqual({
      startMs: Date.parse('2026-11-21T11:00:00Z'),
      endMs: Date.parse('2026-11-21T12:00:00Z'),
    });
  });

  it('is not asked about a window that is already wrong', () => {
    checked.length = 0;
    const backwards = schema.safeParse(values('2026-11-21T12:00:00Z', '2026-11-21T11:00:00Z'));
    expect(messagesAt(backwards, 'end')).toEqual(['End must be after start']);
    expect(messagesAt(backwards, 'start')).toEqual([]);
    expect(checked).toEqual([]);
  });
});
