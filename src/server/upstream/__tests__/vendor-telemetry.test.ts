import { describe, expect, it } from 'vitest';
import {
  VendorAlarmPageSchema,
  VendorConfigurationSchema,
  VendorTelemetryListSchema,
  VendorTelemetryPageSchema,
  VendorTelemetrySchema,
  unwrapEnvelope,
} from '../vendor-schemas.ts';
import {
  toDeviceAlarm,
  toLatestSamples,
  toTelemetrySample,
  toTelemetrySettings,
} from '../vendor-telemetry.ts';

/** Shaped as the vendor document's `DeviceTelemetry`. */
const telemetry = (overrides: Record<string, unknown> = {}) => ({
  deviceId: 'dev-1',
  timestamp: '2026-11-29T10:00:00Z',
  meter: { gridPowerKw: -1.25, gridFrequencyHz: 50.01, cumulativeGridImportKwh: 1200.5 },
  inverter: { powerKw: 3.1, temperatureC: 41 },
  battery: { socPercent: 63, sohPercent: 98, powerKw: 2.5, voltageV: 51.2, currentA: 48.8 },
  pv: { powerKw: 0.8, cumulativeGenerationKwh: 4321 },
  ...overrides,
});

describe('vendor telemetry mapped to the domain sample', () => {
  it('turns kW into W and the timestamp into ms, keeping the vendor signs', () => {
    const sample = toTelemetrySample(VendorTelemetrySchema.parse(telemetry()));
    expect(sample).toEqual({
      atMs: Date.parse('2026-11-29T10:00:00Z'),
      batteryPowerW: 2500, // discharging, the sign of targetBatteryPowerW
      socPercent: 63,
      gridPowerW: -1250, // exporting
      pvPowerW: 800,
    });
  });

  it('reads a charge and an import as negative battery and positive grid power', () => {
    const sample = toTelemetrySample(
      VendorTelemetrySchema.parse(
        telemetry({ battery: { socPercent: 20, powerKw: -3.3 }, meter: { gridPowerKw: 4.1 } }),
      ),
    );
    expect(sample).toMatchObject({ batteryPowerW: -3300, gridPowerW: 4100, socPercent: 20 });
  });

  it('rounds to the watt, reads numbers sent as strings and times without a zone as UTC', () => {
    const sample = toTelemetrySample(
      VendorTelemetrySchema.parse(
        telemetry({
          timestamp: '2026-11-29T10:01:00',
          battery: { socPercent: '55', powerKw: '1.2345' },
          meter: { gridPowerKw: 0.0004 },
        }),
      ),
    );
    expect(sample).toMatchObject({
      atMs: Date.parse('2026-11-29T10:01:00Z'),
      batteryPowerW: 1235,
      gridPowerW: 0,
      socPercent: 55,
    });
  });

  it('adds third-party PV to the PV, and reads a site without PV as 0 W', () => {
    const withBoth = toTelemetrySample(
      VendorTelemetrySchema.parse(telemetry({ thirdPartyPv: { powerKw: 1.5 } })),
    );
    expect(withBoth?.pvPowerW).toBe(2300);
    const without = toTelemetrySample(VendorTelemetrySchema.parse(telemetry({ pv: undefined })));
    expect(without?.pvPowerW).toBe(0);
  });

  it('leaves out a sample without its time, battery power, state of charge or grid power', () => {
    for (const broken of [
      { timestamp: undefined },
      { timestamp: 'yesterday' },
      { battery: { socPercent: 40 } },
      { battery: { powerKw: 1 } },
      { meter: {} },
    ])
      expect(toTelemetrySample(VendorTelemetrySchema.parse(telemetry(broken)))).toBeUndefined();
  });

  it('reads a history page under data, also inside the envelope', () => {
    const page = {
      deviceId: 'dev-1',
      total: 2,
      page: 1,
      size: 500,
      data: [telemetry(), telemetry({ timestamp: '2026-11-29T10:01:00Z' })],
    };
    for (const body of [page, { code: 200, msg: 'success', data: page }]) {
      const parsed = VendorTelemetryPageSchema.parse(unwrapEnvelope(body));
      expect(parsed.data?.map((item) => toTelemetrySample(item)?.atMs)).toEqual([
        Date.parse('2026-11-29T10:00:00Z'),
        Date.parse('2026-11-29T10:01:00Z'),
      ]);
    }
  });

  it('reads the latest data of several devices by device, the newest sample of each', () => {
    const list = [
      telemetry({ deviceId: 'dev-1' }),
      telemetry({ deviceId: 'dev-2', battery: { socPercent: 90, powerKw: -1 } }),
      telemetry({ deviceId: 'dev-1', timestamp: '2026-11-29T09:59:00Z' }),
      telemetry({ deviceId: undefined }),
    ];
    for (const body of [list, { code: 200, msg: 'success', data: list }, { data: list }]) {
      const samples = toLatestSamples(VendorTelemetryListSchema.parse(unwrapEnvelope(body)));
      expect([...samples.keys()].sort()).toEqual(['dev-1', 'dev-2']);
      expect(samples.get('dev-1')?.atMs).toBe(Date.parse('2026-11-29T10:00:00Z'));
      expect(samples.get('dev-2')).toMatchObject({ batteryPowerW: -1000, socPercent: 90 });
    }
  });
});

describe('vendor configuration and alarms', () => {
  it('reads the sampling rate in seconds as ms, the cut-offs and the site limits', () => {
    const settings = toTelemetrySettings(
      VendorConfigurationSchema.parse({
        operationMode: 'selfConsumption',
        chargeCutoffSocPercent: 95,
        dischargeCutoffSocPercent: 10,
        siteImportLimitW: 1000,
        siteExportLimitW: 1000,
        samplingRate: 300,
      }),
    );
    expect(settings).toEqual({
      samplingPeriodMs: 300_000,
      cutoffs: { chargeCutoffSocPercent: 95, dischargeCutoffSocPercent: 10 },
      siteLimits: { siteImportLimitW: 1000, siteExportLimitW: 1000 },
    });
  });

  it('leaves unknown what the configuration does not say or says outside its ranges', () => {
    expect(
      toTelemetrySettings(
        VendorConfigurationSchema.parse({ samplingRate: 45, siteExportLimitW: -1 }),
      ),
    ).toEqual({ cutoffs: {}, siteLimits: {} });
  });

  it('reads alarms with their state and times', () => {
    const page = VendorAlarmPageSchema.parse({
      deviceId: 'dev-1',
      total: 2,
      page: 1,
      size: 500,
      alarms: [
        {
          alarmLevel: 'fault',
          alarmCode: 'F042',
          alarmName: 'Battery Temperature High',
          status: 'active',
          startTime: '2026-11-29T10:05:00Z',
          endTime: null,
        },
        { alarmCode: 'N7', status: 'resolved', endTime: '2026-11-29T10:06:00Z' },
        { alarmName: 'no code' },
      ],
    });
    expect(page.alarms?.map(toDeviceAlarm)).toEqual([
      {
        alarmCode: 'F042',
        alarmName: 'Battery Temperature High',
        level: 'fault',
        active: true,
        startMs: Date.parse('2026-11-29T10:05:00Z'),
        endMs: undefined,
      },
      {
        alarmCode: 'N7',
        alarmName: 'N7',
        level: undefined,
        active: false,
        startMs: undefined,
        endMs: Date.parse('2026-11-29T10:06:00Z'),
      },
      undefined,
    ]);
  });
});
