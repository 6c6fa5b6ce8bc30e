import type { Device } from '../../domain/device.ts';

/**
 * What the vendor last said of a device that is not simply well, in words: `faulted`,
 * `offline`, `faulted, offline`; empty when online (or unknown) and not faulted.
 */
export function deviceStateWords(device: Pick<Device, 'online' | 'faulted'>): string {
  return [device.faulted ? 'faulted' : undefined, device.online === false ? 'offline' : undefined]
    .filter((word) => word !== undefined)
    .join(', ');
}

/**
 * A device's name with its state when it is not simply well, for a row label that has room for
 * one line (the timeline's): `Battery A`, `Battery A ⚠ faulted`, `Battery A · offline`.
 */
export function deviceRowLabel(device: Pick<Device, 'name' | 'online' | 'faulted'>): string {
  const state = deviceStateWords(device);
  if (!state) return device.name;
  return `${device.name} ${device.faulted ? '⚠' : '·'} ${state}`;
}
