import { screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { expectClosedWithFocusOn, openDialogFrom } from '../../testing/dialog-steps.ts';
import '../../testing/render.tsx';
import { Dialog } from '../dialog.tsx';

function Harness() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        New command
      </button>
      <button type="button">Elsewhere</button>
      <Dialog
        title="New command"
        isOpen={open}
        onClose={() => setOpen(false)}
        actions={
          <>
            <button type="button" onClick={() => setOpen(false)}>
              Close
            </button>
            <button type="submit">Submit command</button>
          </>
        }
      >
        <label>
          Target battery power (W) <input type="number" />
        </label>
      </Dialog>
    </>
  );
}

describe('Dialog', () => {
  it('is named by its title, takes focus in, keeps Tab inside and gives focus back on Escape', async () => {
    const { user, dialog } = await openDialogFrom(<Harness />, 'New command', 'New command');

    for (let i = 0; i < 5; i++) {
      await user.tab();
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
    expect(screen.getByRole('button', { name: 'Submit command' })).toBeTruthy();

    await user.keyboard('{Escape}');
    expectClosedWithFocusOn('New command');
  });

  it('makes the page behind it inert while open', async () => {
    const { user } = await openDialogFrom(<Harness />, 'New command', 'New command');
    const elsewhere = screen.getByText('Elsewhere');
    expect(elsewhere.closest('[inert], [aria-hidden="true"]')).not.toBeNull();
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(elsewhere.closest('[inert], [aria-hidden="true"]')).toBeNull();
  });
});
