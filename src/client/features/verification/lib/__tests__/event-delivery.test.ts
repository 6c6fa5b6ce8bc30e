import { describe, expect, it } from 'vitest';
import { eventVerdictsAnswer } from '#client/testing/verdict-records.ts';
import {
  deliveryFigure,
  pendingWords,
  VERDICT_CSV_FIELDS,
  verdictCsvCells,
  verdictFinder,
  verdictLineWords,
} from '../event-delivery.ts';

describe('deliveryFigure', () => {
  it('reads a fleet event in MWh with its share, over the devices with a verdict', () => {
    expect(
      deliveryFigure({
        devices: 8500,
        pending: 0,
        commandedEnergyWh: 34_000_000,
        deliveredEnergyWh: 27_000_000,
        deliveredPercent: 79,
      }),
    ).toEqual({
      figure: 'Delivered 27 of 34 MWh (79%)',
      detail: 'Over the 8500 devices with a verdict, commanded to discharge.',
    });
  });

  it('reads in kWh below 1 MWh, even below 1 kWh, and names a charge', () => {
    expect(deliveryFigure(eventVerdictsAnswer()).figure).toBe('Delivered 5.15 of 10 kWh (52%)');
    expect(
      deliveryFigure({
        devices: 1,
        pending: 0,
        commandedEnergyWh: -800,
        deliveredEnergyWh: -600,
        deliveredPercent: 75,
      }),
    ).toEqual({
      figure: 'Delivered 0.6 of 0.8 kWh (75%)',
      detail: 'Over the 1 device with a verdict, commanded to charge.',
    });
  });

  it('keeps one decimal from 10 and two below, as the energy words do', () => {
    const figure = (commandedEnergyWh: number, deliveredEnergyWh: number) =>
      deliveryFigure({ devices: 20, pending: 0, commandedEnergyWh, deliveredEnergyWh }).figure;
    expect(figure(95_000, 75_060)).toBe('Delivered 75.1 of 95 kWh');
    expect(figure(1_140_000, 854_321)).toBe('Delivered 0.85 of 1.14 MWh');
  });

  it('says when the batteries went the other way, and when only limits were commanded', () => {
    expect(
      deliveryFigure({
        devices: 2,
        pending: 0,
        commandedEnergyWh: 4000,
        deliveredEnergyWh: -500,
        deliveredPercent: -13,
      }),
    ).toEqual({
      figure: 'Delivered none of 4 kWh',
      detail:
        'Over the 2 devices with a verdict, commanded to discharge. The batteries charged 0.5 kWh instead.',
    });
    expect(
      deliveryFigure({ devices: 2, pending: 0, commandedEnergyWh: 0, deliveredEnergyWh: 1500 }),
    ).toEqual({
      figure: '1.5 kWh moved',
      detail: 'Over the 2 devices with a verdict; no target power was commanded (limits only).',
    });
  });
});

describe('the verdict columns of a CSV', () => {
  it('gives the label, the signed kWh and the share measured, blanks without a verdict', () => {
    const find = verdictFinder(eventVerdictsAnswer().verdicts);
    expect(VERDICT_CSV_FIELDS).toEqual([
      'Verdict',
      'Delivered (kWh, discharge positive)',
      'Commanded (kWh, discharge positive)',
      'Share measured',
    ]);
    expect(verdictCsvCells(find('BAT-1'))).toEqual(['Delivered', '4.9', '5', '100%']);
    expect(verdictCsvCells(find('BAT-2'))).toEqual(['Not following', '0.25', '5', '80%']);
    expect(verdictCsvCells(find('BAT-3'))).toEqual(['No verdict yet', '', '', '']);
  });

  it("finds a device's verdict by its command where the page knows it", () => {
    const find = verdictFinder(eventVerdictsAnswer().verdicts);
    expect(find('BAT-1', 'cmd_1')?.verdict).toBe('delivered');
    expect(find('BAT-1', 'cmd_other')).toBeUndefined();
  });
});

describe('verdictLineWords', () => {
  it('gives the energy and share measured, the energy alone when nothing was measured', () => {
    expect(
      verdictLineWords({ commandedEnergyWh: 5000, deliveredEnergyWh: 4900, coverage: 1 }),
    ).toBe('4.9 kWh discharged of 5 kWh commanded (98%); 100% measured');
    expect(
      verdictLineWords({ commandedEnergyWh: 5000, deliveredEnergyWh: null, coverage: 0 }),
    ).toBe('Nothing measured of 5 kWh discharge commanded');
  });

  it('says nothing of a command cancelled before its window began', () => {
    expect(
      verdictLineWords({ commandedEnergyWh: 0, deliveredEnergyWh: null, coverage: 0 }),
    ).toBeUndefined();
  });
});

describe('pendingWords', () => {
  it('counts the devices still waiting, nothing when none', () => {
    expect(pendingWords(0)).toBeUndefined();
    expect(pendingWords(1)).toBe('1 device waiting for its verdict');
    expect(pendingWords(40)).toBe('40 devices waiting for their verdict');
  });
});
