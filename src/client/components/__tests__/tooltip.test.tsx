import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import '../../testing/render.tsx';
import { Tooltip } from '../tooltip.tsx';

describe('Tooltip', () => {
  it('shows on keyboard focus, describes its trigger, and hides on Escape', async () => {
    const user = userEvent.setup();
    render(
      <>
        <button type="button">Before</button>
        <Tooltip content="Stops every command of the batch still received or executing">
          <button type="button">Cancel batch</button>
        </Tooltip>
        <button type="button">Keep batch</button>
      </>,
    );
    await user.tab();
    await user.tab();
    const trigger = screen.getByRole('button', { name: 'Cancel batch' });
    expect(document.activeElement).toBe(trigger);
    const tooltip = await screen.findByRole('tooltip');
    expect(tooltip.textContent).toBe(
      'Stops every command of the batch still received or executing',
    );
    expect(trigger.getAttribute('aria-describedby')).toBe(tooltip.id);
    // Its neighbours stay where they are and reachable.
    expect(screen.getByRole('button', { name: 'Keep batch' })).toBeTruthy();

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('tooltip')).toBeNull();
    expect(document.activeElement).toBe(trigger);
  });
});
