import { describe, expect, it } from 'vitest';
import { BATCH_OF_THREE, testDevice as device } from '#client/testing/test-devices.ts';
import { combineRanges, devicesRefusing, listDeviceIds } from '../combined-ranges.ts';

const { wide, narrow, noExport } = BATCH_OF_THREE;

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
