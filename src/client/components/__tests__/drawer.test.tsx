import { screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { expectClosedWithFocusOn, openDialogFrom } from '../../testing/dialog-steps.ts';
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
    const { user, dialog: drawer } = await openDialogFrom(
      <Harness />,
      'Show details',
      'Command details',
    );
    expect(drawer.getAttribute('aria-modal')).toBeNull();
    expect(screen.getByText('Zoom in').closest('[inert], [aria-hidden="true"]')).toBeNull();

    await user.keyboard('{Escape}');
    expectClosedWithFocusOn('Show details');
  });

  it('closes with its Close button, focus back on the opener', async () => {
    const { user } = await openDialogFrom(<Harness />, 'Show details', 'Command details');
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expectClosedWithFocusOn('Show details');
  });
});
