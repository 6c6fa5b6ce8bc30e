import { screen, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';

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

/** The segment named `name` (`/month/i`, `/hour/i`) of the date-time field labelled `label`. */
export const dateTimeSegment = (label: string, name: RegExp): HTMLElement =>
  within(dateTimeField(label)).getByRole('spinbutton', { name });

/**
 * Types into the date-time field labelled `label` as an operator does: each segment of `parts`
 * (month, day, hour, minute), in the order given, clicked and its digits typed.
 */
export async function typeDateTime(
  user: UserEvent,
  label: string,
  parts: Partial<Record<'year' | 'month' | 'day' | 'hour' | 'minute', string>>,
): Promise<void> {
  for (const [part, digits] of Object.entries(parts)) {
    await user.click(dateTimeSegment(label, new RegExp(part, 'i')));
    await user.keyboard(digits);
  }
}
