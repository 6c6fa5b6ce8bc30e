import { describe, expect, it } from 'vitest';
import type { Device } from '../../../../../domain/device.ts';
import { buildBatchFormSchema } from '../batch-form-schema.ts';
import { combineRanges, devicesRefusing, listDeviceIds } from '../combined-ranges.ts';

const device = (deviceId: string, capabilities: Device['capabilities']): Device => ({
  deviceId,
  name: deviceId,
  model: 'M',
  capabilities,
});

const wide = device('BAT-A', {
  targetBatteryPowerW: { min: -5000, max: 5000 },
  siteExportLimitW: { min: 0, max: 20000 },
});
const narrow = device('BAT-B', {
  targetBatteryPowerW: { min: -3000, max: 2000 },
  siteExportLimitW: { min: 0, max: 20000 },
});
const noExport = device('BAT-C', { targetBatteryPowerW: { min: -5000, max: 5000 } });

describe('combineRanges', () => {
  it('intersects the ranges of the devices that support a control and spans their envelope', () => {
    const combined = combineRanges([wide, narrow, noExport]);
    expect(combined.targetBatteryPowerW.common).toEqual({ min: -3000, max: 2000 });
    expect(combined.targetBatteryPowerW.envelope).toEqual({ min: -5000, max: 5000 });
    expect(combined.targetBatteryPowerW.lacking).toEqual([]);
  });

  it('keeps devices lacking a control apart instead of narrowing the range to nothing', () => {
    const combined = combineRanges([wide, noExport]);
    expect(combined.siteExportLimitW.common).toEqual({ min: 0, max: 20000 });
    expect(combined.siteExportLimitW.lacking.map((d) => d.deviceId)).toEqual(['BAT-C']);
  });

  it('has no range for a control no device supports, nor for ranges that do not meet', () => {
    const low = device('L', { siteImportLimitW: { min: 0, max: 100 } });
    const high = device('H', { siteImportLimitW: { min: 200, max: 300 } });
    const combined = combineRanges([low, high]);
    expect(combined.siteImportLimitW.common).toBeNull();
    expect(combined.siteImportLimitW.envelope).toEqual({ min: 0, max: 300 });
    expect(combined.chargeCutoffSocPercent.envelope).toBeNull();
  });

  it('has nothing to combine for no devices', () => {
    expect(combineRanges([]).targetBatteryPowerW.envelope).toBeNull();
  });
});

describe('devicesRefusing', () => {
  it('names the devices whose inclusive range leaves the value out', () => {
    const combined = combineRanges([wide, narrow, noExport]).targetBatteryPowerW;
    expect(devicesRefusing(combined, 2000)).toEqual([]);
    expect(devicesRefusing(combined, -3000)).toEqual([]);
    expect(devicesRefusing(combined, 4000).map((d) => d.deviceId)).toEqual(['BAT-B']);
    expect(devicesRefusing(combined, 6000).map((d) => d.deviceId)).toEqual([
      'BAT-A',
      'BAT-B',
      'BAT-C',
    ]);
  });
});

describe('listDeviceIds', () => {
  it('lists up to five IDs, then counts the rest', () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ deviceId: `D${i}` }));
    expect(listDeviceIds(many)).toBe('D0, D1, D2, D3, D4 and 3 more');
    expect(listDeviceIds(many.slice(0, 2))).toBe('D0, D1');
  });
});

describe('buildBatchFormSchema', () => {
  const nowMs = Date.parse('2026-11-21T10:00:00Z');
  const schema = buildBatchFormSchema({
    combined: combineRanges([wide, narrow, noExport]),
    timeZone: 'Europe/Berlin',
    now: () => nowMs,
  });
  const values = (powerControl: Record<string, string>) => ({
    powerControl,
    start: '2026-11-21T12:00',
    end: '2026-11-21T13:00',
  });

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
    const issue = result.error?.issues.find(
      (i) => i.path.join('.') === 'powerControl.targetBatteryPowerW',
    );
    expect(issue?.message).toBe(
      'Target battery power 4 kW is outside the range of device: BAT-B. Every selected device that supports it accepts -3 kW to 2 kW.',
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
      end: '2026-11-21T11:00',
    });
    expect(backwards.error?.issues.map((i) => i.message)).toContain('End must be after start');
    const past = schema.safeParse({
      ...values({ targetBatteryPowerW: '1' }),
      start: '2026-11-21T10:00',
    });
    expect(past.error?.issues.map((i) => i.message)).toContain(
      'Start is in the past: choose a time from now on',
    );
  });
});
