import type { DeviceConfiguration } from '../vendor/telemetry-schemas.ts';

/**
 * What a device does with the commands it is given (src/sandbox/README.md, Behaviours):
 * - `follows`: its battery follows the command in force;
 * - `ignoresCommands`: online and sampled, its battery keeps to self-consumption whatever the
 *   command (the command's lifecycle is unchanged);
 * - `goesOffline`: it sends no samples from {@link OFFLINE_AFTER_START_MS} after a command starts
 *   until {@link OFFLINE_AFTER_END_MS} after it ends (its battery still follows);
 * - `nearCutoff`: its configuration idles the battery outside commands (`feedInPriority`) and its
 *   state of charge starts {@link NEAR_CUTOFF_MARGIN_PERCENT} above the discharge cut-off, so a
 *   discharge stops early;
 * - `siteLimited`: its configuration's export limit is {@link SITE_LIMITED_EXPORT_W}, so a
 *   discharge is capped;
 * - `faultsDuringCommand`: it faults {@link FAULT_AFTER_START_MS} after a command starts, which
 *   cancels the command `deviceFault` and raises an active fault alarm.
 */
export const BEHAVIOURS = [
  'follows',
  'ignoresCommands',
  'goesOffline',
  'nearCutoff',
  'siteLimited',
  'faultsDuringCommand',
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

export const OFFLINE_AFTER_START_MS = 5 * 60_000;
export const OFFLINE_AFTER_END_MS = 15 * 60_000;
export const FAULT_AFTER_START_MS = 10 * 60_000;
export const NEAR_CUTOFF_MARGIN_PERCENT = 5;
export const SITE_LIMITED_EXPORT_W = 1_000;

/**
 * The configuration every device starts with (docs/upstream.md, Telemetry: the sandbox's
 * choices): self-consumption, charge up to 100 %, discharge down to 10 %, no site limit below the
 * vendor's maximum of 65,535 W, a sample a minute.
 */
export const DEFAULT_CONFIGURATION: Required<DeviceConfiguration> = {
  operationMode: 'selfConsumption',
  chargeCutoffSocPercent: 100,
  dischargeCutoffSocPercent: 10,
  siteImportLimitW: 65_535,
  siteExportLimitW: 65_535,
  samplingRate: 60,
};

/** The configuration a device of `behaviour` starts with. */
export function startConfiguration(behaviour: Behaviour): Required<DeviceConfiguration> {
  switch (behaviour) {
    case 'nearCutoff':
      return { ...DEFAULT_CONFIGURATION, operationMode: 'feedInPriority' };
    case 'siteLimited':
      return { ...DEFAULT_CONFIGURATION, siteExportLimitW: SITE_LIMITED_EXPORT_W };
    default:
      return DEFAULT_CONFIGURATION;
  }
}

/**
 * The share of a fleet in each seeded class, per 100 devices: 5 ignore commands, 3 go offline,
 * 2 start near a cut-off, 1 is site-limited, the rest follow. `serial` is the device's position
 * in its fleet; 37 is prime to 100, so every 100 consecutive serials hold exactly these counts.
 */
export function fleetBehaviour(serial: number): Behaviour {
  const slot = (serial * 37) % 100;
  if (slot < 5) return 'ignoresCommands';
  if (slot < 8) return 'goesOffline';
  if (slot < 10) return 'nearCutoff';
  if (slot < 11) return 'siteLimited';
  return 'follows';
}
