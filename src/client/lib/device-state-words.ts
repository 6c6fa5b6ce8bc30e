import type { Device } from '#domain/device.ts';

/** A device not simply well, in words: `faulted`, `offline`, `faulted, offline`; empty otherwise. */
export function deviceStateWords(device: Pick<Device, 'online' | 'faulted'>): string {
  return [device.faulted ? 'faulted' : undefined, device.online === false ? 'offline' : undefined]
    .filter((word) => word !== undefined)
    .join(', ');
}

/** A device's name with its state when not well: `Battery A ⚠ faulted`, `Battery A · offline`. */
export function deviceRowLabel(device: Pick<Device, 'name' | 'online' | 'faulted'>): string {
  const state = deviceStateWords(device);
  if (!state) return device.name;
  return `${device.name} ${device.faulted ? '⚠' : '·'} ${state}`;
}
