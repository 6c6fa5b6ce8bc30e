import { describe, expect, it } from 'vitest';
import type { TelemetrySample } from '../telemetry.ts';
import { columnsOfRows, rowsOfColumns } from '../verdict-answer.ts';
import {
  effectiveWindowOf,
  isRepeatedlyNotFollowing,
  notFollowingFlagOf,
  verdictOf,
  verdictSoFar,
  VERDICT_TOLERANCES,
  type VerdictCommand,
  type VerdictInput,
} from '../verdict.ts';

const MINUTE = 60_000;
const START = Date.parse('2026-03-10T10:00:00Z');
const END = START + 120 * MINUTE;
const DEVICE = { maxChargePowerW: 5000, maxDischargePowerW: 5000 };

/**
 * One sample a minute from ten minutes before the window to its end, each stamped at the end of
 * its minute as the vendor's are; the battery's power over each minute given by minute since the
 * window's start (negative before it); the state of charge of a 10 kWh battery integrates the
 * power, the grid balances load, PV and battery.
 */
function samples(
  batteryW: (minute: number, socPercent: number) => number,
  options: {
    socPercent?: number;
    loadW?: number;
    pvW?: number;
    skip?: (minute: number) => boolean;
  } = {},
): TelemetrySample[] {
  const { loadW = 500, pvW = 0, skip = () => false } = options;
  let soc = options.socPercent ?? 60;
  const out: TelemetrySample[] = [];
  for (let minute = -10; minute < 120; minute += 1) {
    const powerW = batteryW(minute, soc);
    soc = Math.min(100, Math.max(0, soc - (powerW / 60 / 10_000) * 100));
    if (!skip(minute))
      out.push({
        atMs: START + (minute + 1) * MINUTE,
        batteryPowerW: powerW,
        socPercent: soc,
        gridPowerW: loadW - pvW - powerW,
        pvPowerW: pvW,
      });
  }
  return out;
}

const command = (extra: Partial<VerdictCommand> = {}): VerdictCommand => ({
  powerControl: { targetBatteryPowerW: 3000 },
  startMs: START,
  endMs: END,
  status: 'completed',
  startedAtMs: START,
  endedAtMs: END,
  ...extra,
});

const judge = (input: Partial<VerdictInput> & Pick<VerdictInput, 'samples'>) =>
  verdictOf({ command: command(), samplingPeriodMs: MINUTE, device: DEVICE, ...input });

/** Self-consumption: the battery covers the load. */
const selfConsumption = () => 500;
const discharging = (targetW: number) => (minute: number) => (minute < 0 ? 500 : targetW);

describe('verdictOf', () => {
  it('finds a battery that held the target power delivered, with its energy', () => {
    const verdict = judge({ samples: samples(discharging(3000)) });
    expect(verdict.verdict).toBe('delivered');
    expect(verdict.commandedEnergyWh).toBe(6000);
    expect(verdict.deliveredEnergyWh).toBeCloseTo(6000);
    expect(verdict.samples).toMatchObject({ expected: 120, present: 120, following: 120 });
    expect(verdict.coverage).toBe(1);
  });

  it('lets a sample differ by the stated tolerance and no more', () => {
    const within = 3000 * (1 - VERDICT_TOLERANCES.powerShare);
    expect(judge({ samples: samples(discharging(within)) }).verdict).toBe('delivered');
    expect(judge({ samples: samples(discharging(within - 50)) }).verdict).not.toBe('delivered');
  });

  it('judges against the target the device can reach, not one beyond its limit', () => {
    const verdict = judge({
      command: command({ powerControl: { targetBatteryPowerW: 8000 } }),
      samples: samples(discharging(5000)),
    });
    expect(verdict.verdict).toBe('delivered');
    expect(verdict.commandedEnergyWh).toBe(10_000);
  });

  it('finds an online battery that kept to self-consumption not following', () => {
    const verdict = judge({ samples: samples(selfConsumption) });
    expect(verdict.verdict).toBe('notFollowing');
    expect(verdict.samples.following).toBe(0);
  });

  it('finds a battery that followed then fell back partly delivered', () => {
    const verdict = judge({
      samples: samples((minute) => (minute >= 0 && minute < 60 ? 3000 : 500)),
    });
    expect(verdict.verdict).toBe('partlyDelivered');
    expect(verdict.deliveredEnergyWh).toBeCloseTo(3000 + 500);
  });

  it('finds a battery that stopped at its known discharge cut-off limited by state of charge', () => {
    const batteryW = (minute: number, soc: number) => (minute < 0 ? 500 : soc > 20 ? 3000 : 0);
    const verdict = judge({
      command: command({
        powerControl: { targetBatteryPowerW: 3000, dischargeCutoffSocPercent: 20 },
      }),
      samples: samples(batteryW, { socPercent: 40 }),
    });
    expect(verdict.verdict).toBe('limitedBySoc');
    expect(verdict.samples.limitedBySoc).toBeGreaterThan(70);
  });

  it('recognises a stop at an unknown cut-off by a still state of charge', () => {
    const batteryW = (minute: number, soc: number) => (minute < 0 ? 500 : soc > 15 ? 3000 : 0);
    expect(judge({ samples: samples(batteryW, { socPercent: 30 }) }).verdict).toBe('limitedBySoc');
  });

  it('does not take a battery idle from the start for one held at an unknown cut-off', () => {
    const verdict = judge({ samples: samples(() => 0, { socPercent: 40 }) });
    expect(verdict.verdict).toBe('notFollowing');
  });

  it('finds a device that starts at its cut-off limited by state of charge, not not following', () => {
    const verdict = judge({
      samples: samples((minute) => (minute < 0 ? 0 : 0), { socPercent: 10 }),
      cutoffs: { dischargeCutoffSocPercent: 10 },
    });
    expect(verdict.verdict).toBe('limitedBySoc');
  });

  it('finds a discharge capped at a known export limit limited by a site limit', () => {
    // Load 500 W, export capped at 1,500 W: the battery gives 2,000 W of the 3,000 commanded.
    const verdict = judge({
      samples: samples(discharging(2000)),
      siteLimits: { siteExportLimitW: 1500 },
    });
    expect(verdict.verdict).toBe('limitedBySiteLimit');
  });

  it('recognises an unknown export limit by a grid held still while exporting', () => {
    // The load moves, the battery follows it, the grid export holds at 1,500 W.
    const loadAt = (minute: number) => 500 + 10 * (minute % 7);
    const out = samples(discharging(0)).map((sample, index) => {
      const minute = index - 10;
      const batteryPowerW = minute < 0 ? 500 : loadAt(minute) + 1500;
      return { ...sample, batteryPowerW, gridPowerW: minute < 0 ? 0 : -1500 };
    });
    expect(judge({ samples: out }).verdict).toBe('limitedBySiteLimit');
  });

  it('finds a device that sent too few samples no data, however they look', () => {
    const verdict = judge({
      samples: samples(discharging(3000), { skip: (minute) => minute >= 30 }),
    });
    expect(verdict.verdict).toBe('noData');
    expect(verdict.coverage).toBeCloseTo(30 / 120);
    expect(judge({ samples: [] }).verdict).toBe('noData');
    expect(judge({ samples: [] }).deliveredEnergyWh).toBeNull();
  });

  it('judges a device with a short gap on the samples it sent', () => {
    const verdict = judge({
      samples: samples(discharging(3000), { skip: (minute) => minute >= 30 && minute < 50 }),
    });
    expect(verdict.verdict).toBe('delivered');
    expect(verdict.samples.present).toBe(100);
  });

  it('finds a cancelled command cancelled, with the alarms active then', () => {
    const alarm = { alarmCode: 'F012', alarmName: 'Battery Temperature High' };
    const verdict = judge({
      command: command({
        status: 'cancelled',
        cancellationReason: 'deviceFault',
        endedAtMs: START + 30 * MINUTE,
      }),
      samples: samples(discharging(3000)),
      activeAlarms: [alarm],
    });
    expect(verdict.verdict).toBe('cancelled');
    expect(verdict.alarms).toEqual([alarm]);
    // Judged over the 30 minutes it ran.
    expect(verdict.samples.expected).toBe(30);
    expect(verdict.commandedEnergyWh).toBe(1500);
  });

  it('judges a command that started late over its effective window', () => {
    const verdict = judge({
      command: command({ startedAtMs: START + 60 * MINUTE }),
      samples: samples((minute) => (minute < 60 ? 500 : 3000)),
    });
    expect(verdict.verdict).toBe('delivered');
    expect(verdict.samples.expected).toBe(60);
  });

  it('finds a command of limits only delivered while the site keeps within them', () => {
    const limitsOnly = command({ powerControl: { siteExportLimitW: 1000 } });
    // PV of 3 kW, load 500 W: the battery charges 1.5 kW so that export stays at 1 kW.
    const kept = samples(() => -1500, { pvW: 3000 });
    expect(judge({ command: limitsOnly, samples: kept }).verdict).toBe('delivered');
    const broken = samples(() => 0, { pvW: 3000 });
    const verdict = judge({ command: limitsOnly, samples: broken });
    expect(verdict.verdict).toBe('notFollowing');
    expect(verdict.commandedEnergyWh).toBeNull();
  });

  it('reads samples in any order and ignores those outside the window', () => {
    const ordered = samples(discharging(3000));
    const shuffled = [...ordered].reverse();
    expect(judge({ samples: shuffled })).toEqual(judge({ samples: ordered }));
  });
});

describe('verdictSoFar', () => {
  it('judges a running window on the part read so far, with the energies so far', () => {
    const running = command({ status: 'executing', endedAtMs: undefined });
    const halfMs = START + 60 * MINUTE;
    // The battery discharged as told for the first half hour, then kept to self-consumption.
    const read = samples((minute) => (minute < 0 || minute >= 30 ? 500 : 3000)).filter(
      (sample) => sample.atMs <= halfMs,
    );
    const input = { command: running, samples: read, samplingPeriodMs: MINUTE, device: DEVICE };
    const soFar = verdictSoFar(input, halfMs);
    expect(soFar).toMatchObject({ verdict: 'partlyDelivered', commandedEnergyWh: 3000 });
    expect(soFar.deliveredEnergyWh).toBeCloseTo(1500 + 250);
    expect(soFar.samples).toMatchObject({ expected: 60, present: 60, following: 30 });
    // The first half hour alone was delivered.
    expect(verdictSoFar(input, START + 30 * MINUTE)).toMatchObject({
      verdict: 'delivered',
      commandedEnergyWh: 1500,
    });
  });
});

describe('effectiveWindowOf', () => {
  it('is empty for a command cancelled before it started', () => {
    const window = effectiveWindowOf(
      command({ status: 'cancelled', startedAtMs: undefined, endedAtMs: START - MINUTE }),
    );
    expect(window.toMs - window.fromMs).toBe(0);
  });
});

describe('isRepeatedlyNotFollowing', () => {
  it('flags a device not following in two of its last three commands', () => {
    expect(isRepeatedlyNotFollowing(['notFollowing', 'delivered', 'notFollowing'])).toBe(true);
    expect(
      isRepeatedlyNotFollowing(['delivered', 'notFollowing', 'delivered', 'notFollowing']),
    ).toBe(false);
    expect(isRepeatedlyNotFollowing(['notFollowing'])).toBe(false);
  });
});

describe('notFollowingFlagOf', () => {
  it('counts the commands not followed among the last three, for a flagged device only', () => {
    expect(
      notFollowingFlagOf(['notFollowing', 'notFollowing', 'notFollowing', 'delivered']),
    ).toEqual({ notFollowing: 3, of: 3 });
    expect(notFollowingFlagOf(['notFollowing', 'noData', 'notFollowing'])).toEqual({
      notFollowing: 2,
      of: 3,
    });
    expect(notFollowingFlagOf(['notFollowing', 'notFollowing'])).toEqual({
      notFollowing: 2,
      of: 2,
    });
    expect(notFollowingFlagOf(['delivered', 'notFollowing', 'delivered', 'notFollowing'])).toBe(
      undefined,
    );
    expect(notFollowingFlagOf([])).toBe(undefined);
  });
});

describe('sample columns', () => {
  it('keep every sample through columns and back', () => {
    const rows = samples(discharging(3000)).slice(0, 5);
    expect(rowsOfColumns(columnsOfRows(rows))).toEqual(rows);
    expect(columnsOfRows(rows).atMs).toHaveLength(5);
  });
});
