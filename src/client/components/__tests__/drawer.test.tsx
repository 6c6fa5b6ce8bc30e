import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import '../../testing/render.tsx';
import { Drawer } from '../drawer.tsx';

function Harness() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Show details
      </button>
      <button type="button">Zoom in</button>
      <Drawer
        title="Command details"
        isOpen={open}
        onClose={() => setOpen(false)}
        actions={<button type="button">Cancel command</button>}
      >
        <p>cmd_1, received</p>
      </Drawer>
    </>
  );
}

describe('Drawer', () => {
  it('takes focus in, leaves the page usable, and gives focus back on Escape', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByRole('button', { name: 'Show details' }));
    const drawer = screen.getByRole('dialog', { name: 'Command details' });
    expect(drawer.contains(document.activeElement)).toBe(true);
    expect(drawer.getAttribute('aria-modal')).toBeNull();
    expect(screen.getByText('Zoom in').closest('[inert], [aria-hidden="true"]')).toBeNull();

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Show details' }));
  });

  it('closes with its Close button, focus back on the opener', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByRole('button', { name: 'Show details' }));
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Show details' }));
  });
});
