import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
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
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByRole('button', { name: 'New command' }));
    const dialog = screen.getByRole('dialog', { name: 'New command' });
    expect(dialog.contains(document.activeElement)).toBe(true);

    for (let i = 0; i < 5; i++) {
      await user.tab();
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
    expect(screen.getByRole('button', { name: 'Submit command' })).toBeTruthy();

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'New command' }));
  });

  it('makes the page behind it inert while open', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByRole('button', { name: 'New command' }));
    const elsewhere = screen.getByText('Elsewhere');
    expect(elsewhere.closest('[inert], [aria-hidden="true"]')).not.toBeNull();
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(elsewhere.closest('[inert], [aria-hidden="true"]')).toBeNull();
  });
});
