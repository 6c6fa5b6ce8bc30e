import { describe, expect, it } from 'vitest';
import {
  describePowerControl,
  formatBatteryPowerW,
  formatPropertyValueInWords,
} from '../power-control-words.ts';

describe('battery power in words', () => {
  it('says charge or discharge instead of a sign (docs/upstream.md, Commands)', () => {
    expect(formatBatteryPowerW(-2000)).toBe('2 kW charge');
    expect(formatBatteryPowerW(800)).toBe('800 W discharge');
    expect(formatBatteryPowerW(2500)).toBe('2.5 kW discharge');
    expect(formatBatteryPowerW(0)).toBe('0 W');
  });

  it('leaves the other controls with their unit', () => {
    expect(formatPropertyValueInWords('targetBatteryPowerW', -3000)).toBe('3 kW charge');
    expect(formatPropertyValueInWords('siteImportLimitW', 5000)).toBe('5 kW');
    expect(formatPropertyValueInWords('chargeCutoffSocPercent', 90)).toBe('90%');
  });
});

describe('a power control in short form', () => {
  it('says whether the battery charges or discharges, never a bare sign (docs/upstream.md, Commands)', () => {
    expect(describePowerControl({ targetBatteryPowerW: -2000, chargeCutoffSocPercent: 90 })).toBe(
      '2 kW charge, stop charging at 90%',
    );
    expect(describePowerControl({ targetBatteryPowerW: 1500 })).toBe('1.5 kW discharge');
    expect(describePowerControl({ siteExportLimitW: 500 })).toBe('export limit 500 W');
  });
});
