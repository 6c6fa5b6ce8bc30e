import { describe, expect, it } from 'vitest';
import {
  describePowerControl,
  energyFigure,
  formatBatteryPowerW,
  formatMeasuredPowerW,
  formatPropertyValueInWords,
  powerFigure,
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

describe("a fleet's measured power and energy", () => {
  it('reads in W below 1 kW, kW below 1 MW, MW above, to three figures', () => {
    expect(formatMeasuredPowerW(0)).toBe('0 W');
    expect(formatMeasuredPowerW(850.4)).toBe('850 W');
    // Rounding decides the unit: never "1000 W" or "1000 kW".
    expect(formatMeasuredPowerW(999.7)).toBe('1 kW');
    expect(formatMeasuredPowerW(12_480)).toBe('12.5 kW');
    expect(formatMeasuredPowerW(999_999)).toBe('1 MW');
    expect(formatMeasuredPowerW(3_421_000)).toBe('3.42 MW');
    expect(formatMeasuredPowerW(1_254_000_000)).toBe('1,250 MW');
    expect(powerFigure(27_000_000)).toEqual({ figure: '27', unit: 'MW' });
  });

  it('gives its size whatever the sign: the words say charging or discharging', () => {
    expect(formatMeasuredPowerW(-2500)).toBe('2.5 kW');
  });

  it('reads energy in kWh below 1 MWh, MWh above', () => {
    expect(energyFigure(0.5)).toEqual({ figure: '0.5', unit: 'kWh' });
    expect(energyFigure(850.4)).toEqual({ figure: '850', unit: 'kWh' });
    expect(energyFigure(61_234)).toEqual({ figure: '61.2', unit: 'MWh' });
  });
});
