import {
  emptyVerdictCounts,
  type CommandVerdictRecord,
  type EventVerdictsAnswer,
  type SampleColumns,
} from '#domain/verdict-answer.ts';
import type { DeviceCommandVerdict } from '#domain/verdict.ts';

const MINUTE_MS = 60_000;

/**
 * A window's samples every minute from `startTime` to `endTime` (excluded): battery power from
 * `powerW` (a number, or W per minute index), state of charge from `socPercent` moving by
 * `socStepPercent` a minute, grid and PV at 0.
 */
export function minuteSamples(
  startTime: string,
  endTime: string,
  powerW: number | ((minute: number) => number),
  socPercent = 60,
  socStepPercent = -0.3,
): SampleColumns {
  const fromMs = Date.parse(startTime);
  const count = Math.floor((Date.parse(endTime) - fromMs) / MINUTE_MS);
  const minutes = Array.from({ length: count }, (_, minute) => minute);
  const power = typeof powerW === 'number' ? () => powerW : powerW;
  return {
    atMs: minutes.map((minute) => fromMs + minute * MINUTE_MS),
    batteryPowerW: minutes.map(power),
    socPercent: minutes.map((minute) =>
      Math.min(100, Math.max(0, socPercent + socStepPercent * minute)),
    ),
    gridPowerW: minutes.map(() => 0),
    pvPowerW: minutes.map(() => 0),
  };
}

/**
 * A verdict record of `BAT-AU-001-A` (the Adelaide depot's battery): a completed 5 kW discharge
 * judged `delivered` over its whole window, 60 samples of 4.9 kW; `fields` and `result` change the
 * rest, `samples: undefined` leaves the samples out.
 */
export function verdictRecord(
  fields: Partial<Omit<CommandVerdictRecord, 'result'>> &
    Pick<CommandVerdictRecord, 'commandId' | 'startTime' | 'endTime'>,
  result: Partial<DeviceCommandVerdict> = {},
): CommandVerdictRecord {
  const windowMs = Date.parse(fields.endTime) - Date.parse(fields.startTime);
  const expected = Math.round(windowMs / MINUTE_MS);
  const record: CommandVerdictRecord = {
    deviceId: 'BAT-AU-001-A',
    powerControl: { targetBatteryPowerW: 5000 },
    status: 'completed',
    judgedFrom: fields.startTime,
    judgedTo: fields.endTime,
    judgedAt: new Date(Date.parse(fields.endTime) + MINUTE_MS).toISOString(),
    samplingPeriodMs: MINUTE_MS,
    samples: minuteSamples(fields.startTime, fields.endTime, 4900),
    ...fields,
    result: {
      verdict: 'delivered',
      commandedEnergyWh: (5000 * windowMs) / 3_600_000,
      deliveredEnergyWh: (4900 * windowMs) / 3_600_000,
      coverage: 1,
      samples: {
        expected,
        present: expected,
        following: expected,
        limitedBySoc: 0,
        limitedBySiteLimit: 0,
      },
      alarms: [],
      ...result,
    },
  };
  return record;
}

/** The window of {@link eventVerdictsAnswer}: 2026-11-23 09:00 to 10:00 UTC (10:00 to 11:00 in Berlin). */
export const EVENT_WINDOW = { startTime: '2026-11-23T09:00:00Z', endTime: '2026-11-23T10:00:00Z' };

/**
 * A batch's (or fleet job's) verdicts answer over {@link EVENT_WINDOW} at 5-minute steps: three
 * devices commanded 5 kW discharge each, `BAT-1` delivered (4.9 kWh of 5), `BAT-2` not following
 * (0.25 kWh of 5, 80% measured), `BAT-3` waiting for its verdict; `fields` change the rest.
 */
export function eventVerdictsAnswer(
  fields: Partial<EventVerdictsAnswer> = {},
): EventVerdictsAnswer {
  const stepMs = 5 * MINUTE_MS;
  const fromMs = Date.parse(EVENT_WINDOW.startTime);
  return {
    devices: 3,
    pending: 1,
    counts: { ...emptyVerdictCounts(), delivered: 1, notFollowing: 1 },
    commandedEnergyWh: 10_000,
    deliveredEnergyWh: 5150,
    deliveredPercent: 52,
    stepMs,
    curve: Array.from({ length: 12 }, (_, step) => ({
      atMs: fromMs + step * stepMs,
      commandedW: 10_000,
      deliveredW: 5150,
      measuredDevices: 2,
    })),
    verdicts: [
      {
        deviceId: 'BAT-1',
        commandId: 'cmd_1',
        batchCommandId: 'batch_1',
        verdict: 'delivered',
        commandedEnergyWh: 5000,
        deliveredEnergyWh: 4900,
        coverage: 1,
      },
      {
        deviceId: 'BAT-2',
        commandId: 'cmd_2',
        batchCommandId: 'batch_1',
        verdict: 'notFollowing',
        commandedEnergyWh: 5000,
        deliveredEnergyWh: 250,
        coverage: 0.8,
      },
    ],
    ...fields,
  };
}
