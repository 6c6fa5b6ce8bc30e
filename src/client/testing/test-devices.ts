import type { Device, Site } from '#domain/device.ts';
import type { SiteClock } from '#domain/site-clock.ts';

/** A device with only an ID and capability ranges, for capability and batch tests. */
export const testDevice = (deviceId: string, capabilities: Device['capabilities']): Device => ({
  deviceId,
  name: deviceId,
  model: 'M',
  capabilities,
});

/** Three devices of a batch: two ranges of battery power that differ, one without export limit. */
export const BATCH_OF_THREE = {
  wide: testDevice('BAT-A', {
    targetBatteryPowerW: { min: -5000, max: 5000 },
    siteExportLimitW: { min: 0, max: 20000 },
  }),
  narrow: testDevice('BAT-B', {
    targetBatteryPowerW: { min: -3000, max: 2000 },
    siteExportLimitW: { min: 0, max: 20000 },
  }),
  noExport: testDevice('BAT-C', { targetBatteryPowerW: { min: -5000, max: 5000 } }),
};

/** Battery A of the Harbour plant: online, battery power from 5 kW charge to 5 kW discharge. */
export const BATTERY_A: Device = {
  deviceId: 'BAT-EU-001-A',
  name: 'Battery A',
  model: 'PD-10',
  online: true,
  capabilities: { targetBatteryPowerW: { min: -5000, max: 5000 } },
};

/** A site clock inferred from the site's country and the vendor's offset (Berlin's). */
export const INFERRED_CLOCK: SiteClock = { source: 'inferred', vendorOffset: '+01:00' };

/**
 * The Harbour plant (`PLANT-EU-001`, Germany, Europe/Berlin worked out from the vendor's
 * `UTC+1:00`) holding `devices`: by default Battery A.
 */
export const harbourPlant = (devices: Device[] = [BATTERY_A]): Site => ({
  siteId: 'PLANT-EU-001',
  name: 'Harbour plant',
  countryCode: 'DE',
  timeZone: 'Europe/Berlin',
  clock: INFERRED_CLOCK,
  devices,
});

/** Battery D of the Adelaide Depot: online, battery power from 5 kW charge to 5 kW discharge. */
export const BATTERY_D: Device = {
  deviceId: 'BAT-AU-002-D',
  name: 'Battery D',
  model: 'PD-10',
  online: true,
  capabilities: { targetBatteryPowerW: { min: -5000, max: 5000 } },
};

/**
 * The Adelaide Depot (`PLANT-AU-002`, Australia) on the vendor's fixed `UTC+9:30`: Adelaide's
 * standard offset, which Darwin keeps all year, so no zone is inferred (docs/decisions/006,
 * section 6) and its times are on a clock that does not follow daylight saving time.
 */
export const adelaideDepot = (devices: Device[] = [BATTERY_D]): Site => ({
  siteId: 'PLANT-AU-002',
  name: 'Adelaide Depot',
  countryCode: 'AU',
  timeZone: '+09:30',
  clock: { source: 'offset', vendorOffset: '+09:30' },
  devices,
});

/**
 * The Adelaide depot (`PLANT-AU-001`) whose zone was set to Australia/Adelaide, on the vendor's
 * `UTC+9:30`, holding Battery A (`BAT-AU-001-A`, online, model PD-10) with `capabilities`.
 */
export const zonedAdelaideDepot = (capabilities: Device['capabilities']): Site => ({
  siteId: 'PLANT-AU-001',
  name: 'Adelaide depot',
  timeZone: 'Australia/Adelaide',
  clock: { source: 'set', vendorOffset: '+09:30' },
  devices: [
    { deviceId: 'BAT-AU-001-A', name: 'Battery A', model: 'PD-10', online: true, capabilities },
  ],
});

/**
 * The Brisbane Yard (`PLANT-AU-003`, Australia, vendor's `UTC+10:00`), whose zone Dana Admin set
 * to Australia/Brisbane at 2026-11-20 03:30 UTC.
 */
export const brisbaneYard = (devices: Device[] = []): Site => ({
  siteId: 'PLANT-AU-003',
  name: 'Brisbane Yard',
  countryCode: 'AU',
  timeZone: 'Australia/Brisbane',
  clock: {
    source: 'set',
    vendorOffset: '+10:00',
    setBy: 'Dana Admin',
    setAt: '2026-11-20T03:30:00Z',
  },
  devices,
});

const FIVE_KW = { targetBatteryPowerW: { min: -5000, max: 5000 } };

/**
 * Two sites on clocks far apart, for the timeline: the Berlin plant (`PLANT-EU-001`, Battery A and
 * Battery B) and the Adelaide plant (`PLANT-AU-001`, Battery AU, UTC+10:30 in November), every
 * battery from 5 kW charge to 5 kW discharge.
 */
export const TWO_ZONE_SITES: readonly Site[] = [
  {
    siteId: 'PLANT-EU-001',
    name: 'Berlin plant',
    countryCode: 'DE',
    timeZone: 'Europe/Berlin',
    clock: INFERRED_CLOCK,
    devices: [
      { deviceId: 'BAT-EU-001-A', name: 'Battery A', model: 'X', capabilities: FIVE_KW },
      { deviceId: 'BAT-EU-001-B', name: 'Battery B', model: 'X', capabilities: FIVE_KW },
    ],
  },
  {
    siteId: 'PLANT-AU-001',
    name: 'Adelaide plant',
    countryCode: 'AU',
    timeZone: 'Australia/Adelaide',
    clock: { source: 'set', vendorOffset: '+09:30', setBy: 'Dana Admin' },
    devices: [{ deviceId: 'BAT-AU-001-A', name: 'Battery AU', model: 'X', capabilities: FIVE_KW }],
  },
];
