import { screen } from '@testing-library/react';

/** The control labelled exactly `label`. */
export const field = (label: string): HTMLElement => screen.getByLabelText(label, { exact: true });

/** The text of everything a control's `aria-describedby` points at (hints, error), `|`-joined. */
export const describedText = (element: HTMLElement): string =>
  (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent)
    .join(' | ');

/** The date-time field (a group of segments) labelled exactly `label`. */
export const dateTimeField = (label: string): HTMLElement =>
  screen.getByRole('group', { name: label });

/**
 * What a date-time field shows, e.g. `2026-11-21, 11:30 GMT+10:30`, without the bidirectional
 * isolation marks the browser's date formatting puts around the time.
 */
export const shownDateTime = (label: string): string =>
  (dateTimeField(label).textContent ?? '').replace(/[\u2066-\u2069]/g, '');
