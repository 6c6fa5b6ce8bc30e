import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { expect } from 'vitest';

/**
 * Renders `ui` and opens a dialog (or drawer) with the button named `opener`: the user, and the
 * dialog named `dialogName`, checked to have taken the focus in.
 */
export async function openDialogFrom(ui: ReactElement, opener: string, dialogName: string) {
  const user = userEvent.setup();
  render(ui);
  await user.click(screen.getByRole('button', { name: opener }));
  const dialog = screen.getByRole('dialog', { name: dialogName });
  expect(dialog.contains(document.activeElement)).toBe(true);
  return { user, dialog };
}

/** Checks that no dialog is open any more and that the focus went back to the button named `opener`. */
export function expectClosedWithFocusOn(opener: string): void {
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(document.activeElement).toBe(screen.getByRole('button', { name: opener }));
}
