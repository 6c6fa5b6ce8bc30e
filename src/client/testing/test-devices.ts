import type { Device, Site } from '../../domain/device.ts';

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

/** The Harbour plant (`PLANT-EU-001`, Europe/Berlin) holding `devices`: by default Battery A. */
export const harbourPlant = (devices: Device[] = [BATTERY_A]): Site => ({
  siteId: 'PLANT-EU-001',
  name: 'Harbour plant',
  timeZone: 'Europe/Berlin',
  devices,
});
