import { screen } from '@testing-library/react';
import type { Device } from '../../domain/device.ts';

/** The control labelled exactly `label`. */
export const field = (label: string): HTMLElement => screen.getByLabelText(label, { exact: true });

/** The text of everything a control's `aria-describedby` points at (hints, error), `|`-joined. */
export const describedText = (element: HTMLElement): string =>
  (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent)
    .join(' | ');

/** A device with only an ID and capability ranges, for capability and batch tests. */
export const testDevice = (deviceId: string, capabilities: Device['capabilities']): Device => ({
  deviceId,
  name: deviceId,
  model: 'M',
  capabilities,
});
