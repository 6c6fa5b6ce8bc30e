import type { TelemetrySample } from '#domain/telemetry.ts';
import { toUtc } from './vendor-mapping.ts';
import type { VendorAlarm, VendorConfiguration, VendorTelemetry } from './vendor-schemas.ts';

/**
 * What the product reads of a device's configuration (the vendor's `DeviceConfiguration`): the
 * sampling period and the cut-offs and site limits a verdict explains a shortfall with. Absent
 * fields are unknown.
 */
export interface DeviceTelemetrySettings {
  samplingPeriodMs?: number | undefined;
  cutoffs: { chargeCutoffSocPercent?: number; dischargeCutoffSocPercent?: number };
  siteLimits: { siteImportLimitW?: number; siteExportLimitW?: number };
}

/** An alarm, fault or notice of a device, in the product's terms. */
export interface DeviceAlarm {
  alarmCode: string;
  alarmName: string;
  level: string | undefined;
  active: boolean;
  startMs: number | undefined;
  endMs: number | undefined;
}

const watts = (kw: number) => Math.round(kw * 1000);
const msOf = (value: string | null | undefined) => {
  const utc = toUtc(value);
  return utc === undefined ? undefined : Date.parse(utc);
};
const given = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/**
 * A vendor `DeviceTelemetry` as the domain's sample: kW to W (rounded to the watt), the timestamp
 * to epoch ms; the signs are the vendor's (battery positive = discharge, the sign of
 * `targetBatteryPowerW`; grid positive = import). PV is the vendor's PV and third-party PV
 * together, both producing on the site; a device without PV reads 0.
 *
 * @returns undefined when the sample lacks its time, battery power, state of charge or grid power:
 *   a verdict counts it as missing rather than guess it.
 */
export function toTelemetrySample(telemetry: VendorTelemetry): TelemetrySample | undefined {
  const atMs = msOf(telemetry.timestamp);
  const batteryKw = telemetry.battery?.powerKw;
  const soc = telemetry.battery?.socPercent;
  const gridKw = telemetry.meter?.gridPowerKw;
  if (atMs === undefined || !given(batteryKw) || !given(soc) || !given(gridKw)) return undefined;
  const pvKw = [telemetry.pv?.powerKw, telemetry.thirdPartyPv?.powerKw].filter(given);
  return {
    atMs,
    batteryPowerW: watts(batteryKw),
    socPercent: soc,
    gridPowerW: watts(gridKw),
    pvPowerW: watts(pvKw.reduce((sum, kw) => sum + kw, 0)),
  };
}

/** The latest sample of each device the answer names; one without a device ID is left out. */
export function toLatestSamples(
  telemetry: readonly VendorTelemetry[],
): Map<string, TelemetrySample> {
  const byDevice = new Map<string, TelemetrySample>();
  for (const item of telemetry) {
    const sample = item.deviceId ? toTelemetrySample(item) : undefined;
    const known = item.deviceId ? byDevice.get(item.deviceId) : undefined;
    if (item.deviceId && sample && (!known || known.atMs < sample.atMs))
      byDevice.set(item.deviceId, sample);
  }
  return byDevice;
}

/** `samplingRate` (s, 60 or 300) as ms; a value outside the vendor's two is left unknown. */
export function toTelemetrySettings(configuration: VendorConfiguration): DeviceTelemetrySettings {
  const rate = configuration.samplingRate;
  const percent = (value: number | null | undefined) =>
    given(value) && value >= 0 && value <= 100 ? value : undefined;
  const limit = (value: number | null | undefined) =>
    given(value) && value >= 0 ? value : undefined;
  const entries = <T extends object>(object: T) =>
    Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
  return {
    ...(rate === 60 || rate === 300 ? { samplingPeriodMs: rate * 1000 } : {}),
    cutoffs: entries({
      chargeCutoffSocPercent: percent(configuration.chargeCutoffSocPercent),
      dischargeCutoffSocPercent: percent(configuration.dischargeCutoffSocPercent),
    }),
    siteLimits: entries({
      siteImportLimitW: limit(configuration.siteImportLimitW),
      siteExportLimitW: limit(configuration.siteExportLimitW),
    }),
  };
}

/** @returns undefined for a record without its code. */
export function toDeviceAlarm(alarm: VendorAlarm): DeviceAlarm | undefined {
  if (!alarm.alarmCode) return undefined;
  return {
    alarmCode: alarm.alarmCode,
    alarmName: alarm.alarmName ?? alarm.alarmCode,
    level: alarm.alarmLevel ?? undefined,
    active: (alarm.status ?? 'active').toLowerCase() === 'active',
    startMs: msOf(alarm.startTime),
    endMs: msOf(alarm.endTime),
  };
}
