import { act, screen, within } from '@testing-library/react';
import type userEvent from '@testing-library/user-event';

/**
 * On the rendered timeline page: focuses the grid, moves to the first device row (Battery A of
 * the test sites), opens its New command form and submits `targetBatteryPowerW`. Returns the
 * form's dialog, still open while the outcome is awaited.
 */
export async function submitFirstRowCommand(
  user: ReturnType<typeof userEvent.setup>,
  targetBatteryPowerW = '1000',
): Promise<HTMLElement> {
  const grid = await screen.findByRole('grid', { name: 'Command timeline' });
  act(() => grid.focus());
  await user.keyboard('{ArrowDown}');
  await user.click(await screen.findByRole('button', { name: 'New command for Battery A' }));
  const dialog = await screen.findByRole('dialog', { name: 'New command' });
  await user.type(within(dialog).getByLabelText('Target battery power (W)'), targetBatteryPowerW);
  await user.click(within(dialog).getByRole('button', { name: 'Submit command' }));
  return dialog;
}
