import { describe, expect, it } from 'vitest';
import { applyCancellation, DeviceCommandSchema } from '../command.ts';
import { PowerControlSchema, parsePowerControlValue } from '../power-control.ts';
import { capabilitiesOf, checkCapabilities, describeViolation } from '../device.ts';
import { BatchRequestSchema } from '../batch.ts';
import { HistoryQuerySchema, historyRangeProblem, MAX_HISTORY_RANGE_MS } from '../history.ts';
import { ID_PATTERN } from '../ids.ts';

const command = {
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-11-21T02:00:00Z',
  endTime: '2026-11-21T05:00:00Z',
};

describe('PowerControlSchema', () => {
  it('requires at least one control property (docs/upstream.md, Commands)', () => {
    expect(PowerControlSchema.safeParse({}).success).toBe(false);
    expect(PowerControlSchema.safeParse({ chargeCutoffSocPercent: 90 }).success).toBe(true);
  });
  it('refuses unknown properties and out-of-schema values, naming the field', () => {
    expect(PowerControlSchema.safeParse({ targetPowerW: 1 }).success).toBe(false);
    const result = PowerControlSchema.safeParse({ chargeCutoffSocPercent: 101 });
    expect(result.error?.issues[0]?.path).toEqual(['chargeCutoffSocPercent']);
  });
  it("words each refusal in the product's names, with the range and its unit", () => {
    const messages = (control: unknown) =>
      PowerControlSchema.safeParse(control).error?.issues.map((issue) => issue.message);
    expect(messages({ chargeCutoffSocPercent: 101 })).toEqual([
      'Charge cut-off SoC must be between 5% and 100%',
    ]);
    expect(messages({ siteImportLimitW: 70_000, siteExportLimitW: -1 })).toEqual([
      'Site import limit must be between 0 and 65535 W',
      'Site export limit must be between 0 and 65535 W',
    ]);
    expect(messages({ targetBatteryPowerW: 2.5 })).toEqual([
      'Target battery power must be a whole number of W',
    ]);
    expect(messages({})).toEqual([
      'Set at least one power control: target battery power, a SoC cut-off or a site limit',
    ]);
  });
});

describe('parsePowerControlValue', () => {
  it('reads a power in W or kW and never changes a value silently', () => {
    expect(parsePowerControlValue('siteImportLimitW', '5 kW')).toEqual({ value: 5000 });
    expect(parsePowerControlValue('siteImportLimitW', '5000')).toEqual({ value: 5000 });
    expect(parsePowerControlValue('targetBatteryPowerW', '-2.5kw')).toEqual({ value: -2500 });
    expect(parsePowerControlValue('targetBatteryPowerW', '800 W')).toEqual({ value: 800 });
    expect(parsePowerControlValue('targetBatteryPowerW', '−3 kW')).toEqual({ value: -3000 });
    for (const text of ['abc', '5 MW', '5,000', '1e3', '5 %', ''])
      expect(parsePowerControlValue('siteImportLimitW', text)).toEqual({
        problem: 'Type a power in W or kW, like 5000 or 5 kW',
      });
    expect(parsePowerControlValue('targetBatteryPowerW', '1.2345 kW')).toEqual({
      problem: 'Target battery power must be a whole number of W',
    });
  });
  it('reads a SoC in percent, with or without the sign', () => {
    expect(parsePowerControlValue('chargeCutoffSocPercent', '80')).toEqual({ value: 80 });
    expect(parsePowerControlValue('chargeCutoffSocPercent', '80 %')).toEqual({ value: 80 });
    expect(parsePowerControlValue('dischargeCutoffSocPercent', '50.5')).toEqual({
      problem: 'Discharge cut-off SoC must be a whole number of %',
    });
    expect(parsePowerControlValue('dischargeCutoffSocPercent', '5 kW')).toEqual({
      problem: 'Type a percentage, like 80 or 80 %',
    });
  });
});

describe('describeViolation', () => {
  it("names the control, the value and the device's range in the product's words", () => {
    expect(
      describeViolation({
        kind: 'outOfRange',
        property: 'targetBatteryPowerW',
        value: 9000,
        range: { min: -5000, max: 5000 },
      }),
    ).toBe('Target battery power must be between -5000 and 5000 W on this device (9000 W asked)');
    expect(describeViolation({ kind: 'unsupported', property: 'siteExportLimitW' })).toBe(
      'This device does not support a site export limit',
    );
  });
});

describe('DeviceCommandSchema', () => {
  it('accepts a well-formed command', () => {
    expect(DeviceCommandSchema.parse(command)).toEqual(command);
  });
  it('refuses a window whose end is before its start', () => {
    const result = DeviceCommandSchema.safeParse({ ...command, endTime: '2026-11-21T01:00:00Z' });
    expect(result.error?.issues[0]?.path).toEqual(['endTime']);
  });
});

describe('checkCapabilities', () => {
  const capabilities = {
    targetBatteryPowerW: { min: -5000, max: 5000 },
    chargeCutoffSocPercent: { min: 50, max: 100 },
  };
  it('passes values inside the range, bounds included', () => {
    expect(
      checkCapabilities({ targetBatteryPowerW: 5000, chargeCutoffSocPercent: 50 }, capabilities),
    ).toEqual([]);
  });
  it('reports out-of-range values and unsupported controls', () => {
    expect(
      checkCapabilities({ targetBatteryPowerW: -5001, siteExportLimitW: 100 }, capabilities),
    ).toEqual([
      {
        kind: 'outOfRange',
        property: 'targetBatteryPowerW',
        value: -5001,
        range: { min: -5000, max: 5000 },
      },
      { kind: 'unsupported', property: 'siteExportLimitW' },
    ]);
  });
});

describe('BatchRequestSchema', () => {
  const devices = (n: number) => Array.from({ length: n }, (_, i) => `BAT-${i}`);
  it('allows 50 devices and refuses 51 (docs/upstream.md, Batches)', () => {
    expect(BatchRequestSchema.safeParse({ devices: devices(50), command }).success).toBe(true);
    expect(BatchRequestSchema.safeParse({ devices: devices(51), command }).success).toBe(false);
  });
  it('refuses duplicates and an empty list', () => {
    expect(BatchRequestSchema.safeParse({ devices: ['A', 'A'], command }).success).toBe(false);
    expect(BatchRequestSchema.safeParse({ devices: [], command }).success).toBe(false);
  });
});

describe('history range (docs/upstream.md, History: at most 30 days)', () => {
  const start = Date.parse('2026-10-01T00:00:00Z');
  it('allows exactly 30 days and refuses 30 days plus one second', () => {
    expect(historyRangeProblem(start, start + MAX_HISTORY_RANGE_MS)).toBeNull();
    expect(historyRangeProblem(start, start + MAX_HISTORY_RANGE_MS + 1000)).toMatch(/30 days/);
  });
  it('counts elapsed UTC time across a DST change (Europe/Berlin, 25 October 2026)', () => {
    const query = { startTime: '2026-10-20T00:00:00Z', endTime: '2026-11-19T00:00:00Z' };
    expect(HistoryQuerySchema.safeParse(query).success).toBe(true);
  });
});

describe('ID_PATTERN', () => {
  it('refuses dot segments, slashes and encoded characters', () => {
    for (const bad of ['..', '.', 'a/b', 'a%2Fb', '', 'x'.repeat(129)])
      expect(ID_PATTERN.test(bad)).toBe(false);
    for (const good of ['BAT-EU-001-A', 'cmd_123', 'PLANT-EU-100'])
      expect(ID_PATTERN.test(good)).toBe(true);
  });
});

describe('the vendor schema bounds of a power control', () => {
  it('takes SoC cut-offs from 5 to 100 % and site limits from 0 to 65,535 W', () => {
    for (const property of ['chargeCutoffSocPercent', 'dischargeCutoffSocPercent'] as const) {
      expect(PowerControlSchema.safeParse({ [property]: 5 }).success).toBe(true);
      expect(PowerControlSchema.safeParse({ [property]: 4 }).success).toBe(false);
      expect(PowerControlSchema.safeParse({ [property]: 100 }).success).toBe(true);
    }
    for (const property of ['siteImportLimitW', 'siteExportLimitW'] as const) {
      expect(PowerControlSchema.safeParse({ [property]: 65_535 }).success).toBe(true);
      expect(PowerControlSchema.safeParse({ [property]: 65_536 }).success).toBe(false);
      expect(PowerControlSchema.safeParse({ [property]: -1 }).success).toBe(false);
    }
  });
});

describe('capability ranges from a device power ratings', () => {
  it('spans battery power from minus the charge rating to the discharge rating, others at the bounds', () => {
    expect(capabilitiesOf({ maxChargePowerW: 5000, maxDischargePowerW: 4600 })).toEqual({
      targetBatteryPowerW: { min: -5000, max: 4600 },
      chargeCutoffSocPercent: { min: 5, max: 100 },
      dischargeCutoffSocPercent: { min: 5, max: 100 },
      siteImportLimitW: { min: 0, max: 65_535 },
      siteExportLimitW: { min: 0, max: 65_535 },
    });
  });

  it('leaves battery power out for a device without battery ratings', () => {
    expect(capabilitiesOf({}).targetBatteryPowerW).toBeUndefined();
    expect(capabilitiesOf({ maxDischargePowerW: 3000 }).targetBatteryPowerW).toEqual({
      min: 0,
      max: 3000,
    });
  });
});

describe('a cancellation written into a status record', () => {
  it('makes the record cancelled by an operator at the cancellation time', () => {
    const record = {
      id: 'cmd_1',
      deviceId: 'BAT-EU-001-A',
      ...command,
      status: 'received' as const,
      receivedAt: '2026-11-21T01:00:00Z',
    };
    expect(
      applyCancellation(record, {
        deviceId: 'BAT-EU-001-A',
        commandId: 'cmd_1',
        status: 'cancelled',
        cancelledAt: '2026-11-21T01:30:00Z',
        cancelReason: 'manuallyCancel',
      }),
    ).toEqual({
      ...record,
      status: 'cancelled',
      cancelledAt: '2026-11-21T01:30:00Z',
      cancelReason: 'manuallyCancel',
    });
  });
});
