import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import '../../testing/render.tsx';
import { ConfirmDialog } from '../confirm-dialog.tsx';

function Harness({ onConfirm }: { onConfirm: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Unbind
      </button>
      {open ? (
        <ConfirmDialog
          title="Unbind PLANT-1?"
          confirmLabel="Unbind site"
          dismissLabel="Keep site"
          onDismiss={() => setOpen(false)}
          onConfirm={() => {
            onConfirm();
            setOpen(false);
          }}
        >
          <p>Its devices go out of reach.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

describe('ConfirmDialog', () => {
  it('opens modal with the safe choice focused, and returns focus to the opener', async () => {
    const onConfirm = vi.fn();
    const user = userEvent.setup();
    render(<Harness onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Unbind' }));

    const dialog = screen.getByRole('alertdialog', { name: 'Unbind PLANT-1?' });
    expect(dialog.textContent).toContain('Its devices go out of reach.');
    expect(document.activeElement?.textContent).toBe('Keep site');

    await user.click(screen.getByRole('button', { name: 'Keep site' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(onConfirm).not.toHaveBeenCalled();
    expect(document.activeElement?.textContent).toBe('Unbind');

    await user.click(screen.getByRole('button', { name: 'Unbind' }));
    await user.click(screen.getByRole('button', { name: 'Unbind site' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });

  it('is dismissed by Escape, with focus back on the opener', async () => {
    const onConfirm = vi.fn();
    const user = userEvent.setup();
    render(<Harness onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Unbind' }));
    expect(screen.getByRole('alertdialog')).toBeTruthy();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(onConfirm).not.toHaveBeenCalled();
    expect(document.activeElement?.textContent).toBe('Unbind');
  });
});
