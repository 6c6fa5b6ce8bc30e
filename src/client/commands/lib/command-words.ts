import type { DeviceCommand } from '#domain/command.ts';
import { describePowerControl } from '../../lib/power-control-words.ts';
import { formatWindowInZone, zoneLabel } from '../../lib/time.ts';

/** A command as an operator names it, on the site's clock: `1.5 kW discharge on Hall A battery, 2026-11-21 14:00–16:00 (Europe/Berlin)`. */
export function commandWords(
  command: Pick<DeviceCommand, 'powerControl' | 'startTime' | 'endTime'>,
  deviceName: string,
  timeZone: string,
): string {
  const control = describePowerControl(command.powerControl);
  const window = formatWindowInZone(command.startTime, command.endTime, timeZone);
  return `${control.charAt(0).toUpperCase()}${control.slice(1)} on ${deviceName}, ${window} (${zoneLabel(timeZone)})`;
}
