import { screen } from '@testing-library/react';

/** The control labelled exactly `label`. */
export const field = (label: string): HTMLElement => screen.getByLabelText(label, { exact: true });

/** The text of everything a control's `aria-describedby` points at (hints, error), `|`-joined. */
export const describedText = (element: HTMLElement): string =>
  (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent)
    .join(' | ');
