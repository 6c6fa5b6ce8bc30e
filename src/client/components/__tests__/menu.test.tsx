import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import '../../testing/render.tsx';
import { Menu } from '../menu.tsx';

describe('Menu', () => {
  it('opens with the first choice focused, picks with arrows and Enter, and returns focus', async () => {
    const user = userEvent.setup();
    const foldAll = vi.fn();
    const unfoldAll = vi.fn();
    render(
      <Menu
        label="Site actions"
        actions={[
          { id: 'fold', label: 'Fold every site', onAction: foldAll },
          { id: 'unfold', label: 'Unfold every site', onAction: unfoldAll },
          { id: 'export', label: 'Export', onAction: vi.fn(), isDisabled: true },
        ]}
      />,
    );
    const button = screen.getByRole('button', { name: /Site actions/ });
    await user.tab();
    expect(document.activeElement).toBe(button);
    await user.keyboard('{Enter}');
    const menu = await screen.findByRole('menu');
    expect(document.activeElement?.textContent).toBe('Fold every site');
    expect(screen.getByRole('menuitem', { name: 'Export' }).getAttribute('aria-disabled')).toBe(
      'true',
    );
    await user.keyboard('{ArrowDown}{Enter}');
    expect(unfoldAll).toHaveBeenCalledTimes(1);
    expect(foldAll).not.toHaveBeenCalled();
    expect(menu.isConnected).toBe(false);
    expect(document.activeElement).toBe(button);
  });

  it('closes on Escape without picking', async () => {
    const user = userEvent.setup();
    const foldAll = vi.fn();
    render(
      <Menu label="Site actions" actions={[{ id: 'fold', label: 'Fold', onAction: foldAll }]} />,
    );
    await user.click(screen.getByRole('button', { name: /Site actions/ }));
    expect(await screen.findByRole('menu')).toBeTruthy();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(foldAll).not.toHaveBeenCalled();
  });

  it('opens from outside with the first choice focused, and says why choices are missing', async () => {
    const user = userEvent.setup();
    const copy = vi.fn();
    const onOpenChange = vi.fn();
    const { rerender } = render(
      <Menu
        label="⋯"
        aria-label="Actions for cmd_1"
        caret={false}
        isOpen={false}
        onOpenChange={onOpenChange}
        note="Viewers can look but not schedule."
        actions={[{ id: 'copy', label: 'Copy window', onAction: copy }]}
      />,
    );
    expect(screen.queryByRole('menu')).toBeNull();
    rerender(
      <Menu
        label="⋯"
        aria-label="Actions for cmd_1"
        caret={false}
        isOpen
        onOpenChange={onOpenChange}
        note="Viewers can look but not schedule."
        actions={[{ id: 'copy', label: 'Copy window', onAction: copy }]}
      />,
    );
    const menu = await screen.findByRole('menu');
    expect(menu.textContent).toContain('Viewers can look but not schedule.');
    expect(screen.getByRole('group', { name: 'Viewers can look but not schedule.' })).toBeTruthy();
    await vi.waitFor(() => expect(document.activeElement?.textContent).toBe('Copy window'));
    await user.keyboard('{Enter}');
    expect(copy).toHaveBeenCalledOnce();
    expect(onOpenChange).toHaveBeenLastCalledWith(false);
    expect(screen.getByRole('button', { name: 'Actions for cmd_1' }).textContent).toBe('⋯');
  });
});
