import ct from 'countries-and-timezones';
import { StatusRecordSchema, type StatusRecord } from '#domain/command.ts';
import { capabilitiesOf, type Device, type Site } from '#domain/device.ts';
import { POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import { siteClockOf, type CountryZone } from '#domain/site-clock.ts';
import { UtcTimestampSchema } from '#domain/time.ts';
import type { StoredSiteZone } from '../db/site-zones.ts';
import type { VendorCommand, VendorDevice, VendorSite } from './vendor-schemas.ts';

/** Most important first (`countries-and-timezones` names the main country first). */
export function zonesOfCountry(countryCode: string): CountryZone[] {
  return (ct.getCountry(countryCode)?.timezones ?? []).map((name) => ({
    name,
    countries: ct.getTimezone(name)?.countries ?? [],
  }));
}

/** Capability ranges from its kW ratings (decision 006). */
export function toDevice(device: VendorDevice): Device {
  const kw = (value: number | null | undefined) =>
    value === null || value === undefined ? undefined : value * 1000;
  return {
    deviceId: device.id,
    name: device.name ?? device.id,
    model: device.model ?? '',
    capabilities: capabilitiesOf({
      maxChargePowerW: kw(device.maxChargePowerKw),
      maxDischargePowerW: kw(device.maxDischargePowerKw),
    }),
    ...(typeof device.batteryCapacityKwh === 'number' && device.batteryCapacityKwh >= 0
      ? { batteryCapacityKwh: device.batteryCapacityKwh }
      : {}),
    ...(typeof device.online === 'boolean' ? { online: device.online } : {}),
    ...(typeof device.faultStatus === 'boolean' ? { faulted: device.faultStatus } : {}),
  };
}

/** Its clock per domain `siteClockOf`. @param devices when the vendor listed them apart. */
export function toSite(
  site: VendorSite,
  options: { stored?: StoredSiteZone | undefined; nowMs: number; devices?: VendorDevice[] },
): Site {
  const { timeZone, clock } = siteClockOf({
    stored: options.stored,
    countryCode: site.countryCode ?? undefined,
    vendorTimeZone: site.timezone ?? undefined,
    zonesOfCountry,
    nowMs: options.nowMs,
  });
  return {
    siteId: site.id,
    name: site.name ?? site.id,
    ...(site.countryCode ? { countryCode: site.countryCode.toUpperCase() } : {}),
    timeZone,
    clock,
    ...(typeof site.online === 'boolean' ? { online: site.online } : {}),
    ...(typeof site.faultStatus === 'boolean' ? { faulted: site.faultStatus } : {}),
    devices: (site.devices ?? options.devices ?? []).map(toDevice),
  };
}

/** An offset or no designator read as UTC; undefined when not a time. */
export function toUtc(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (UtcTimestampSchema.safeParse(value).success) return value;
  const withZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/**
 * @param deviceId when the vendor's record leaves it out.
 * @returns undefined when the record does not fit the product's schema.
 */
export function toStatusRecord(command: VendorCommand, deviceId: string): StatusRecord | undefined {
  const powerControl: Record<string, unknown> = {};
  for (const property of POWER_CONTROL_PROPERTIES)
    if (command.powerControl[property] !== undefined && command.powerControl[property] !== null)
      powerControl[property] = command.powerControl[property];
  const reason = command.cancelReason ?? command.cancellReason;
  const times = {
    startTime: toUtc(command.startTime),
    endTime: toUtc(command.endTime),
    receivedAt: toUtc(command.receivedAt),
    startedAt: toUtc(command.startedAt),
    completedAt: toUtc(command.completedAt),
    cancelledAt: toUtc(command.cancelledAt),
  };
  const parsed = StatusRecordSchema.safeParse({
    id: command.id,
    deviceId: command.deviceId ?? deviceId,
    powerControl,
    status: command.status,
    ...Object.fromEntries(Object.entries(times).filter(([, value]) => value !== undefined)),
    ...(reason ? { cancelReason: reason } : {}),
  });
  return parsed.success ? parsed.data : undefined;
}
