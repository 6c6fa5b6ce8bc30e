import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../testing/render.tsx';
import { clearToasts, showToast, ToastRegion } from '../toast.tsx';

function renderPage() {
  return renderWithProviders(
    <>
      <button type="button">Submit command</button>
      <ToastRegion />
    </>,
  );
}

afterEach(() => {
  act(() => clearToasts());
  vi.useRealTimers();
});

describe('toasts', () => {
  it('shows an outcome with its words, link and action, in a landmark', async () => {
    renderPage();
    const onUndo = vi.fn();
    act(() => {
      showToast({
        title: 'Command cmd_1 submitted',
        description: 'Starts 11:30 (Europe/Berlin).',
        tone: 'success',
        link: { label: 'Open the device', to: '/sites/S/devices/D' },
        action: { label: 'Undo', onAction: onUndo },
      });
    });
    const region = await screen.findByRole('region', { name: /notification/ });
    const toast = within(region).getByRole('alertdialog');
    expect(toast.textContent).toContain('Command cmd_1 submitted');
    expect(toast.textContent).toContain('Starts 11:30 (Europe/Berlin).');
    expect(within(toast).getByRole('link', { name: 'Open the device' }).getAttribute('href')).toBe(
      '/sites/S/devices/D',
    );
    await userEvent.click(within(toast).getByRole('button', { name: 'Undo' }));
    expect(onUndo).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('is reached with F6, Undo by keyboard, and focus goes back to where it was', async () => {
    const user = userEvent.setup();
    renderPage();
    const onUndo = vi.fn();
    const submit = screen.getByRole('button', { name: 'Submit command' });
    submit.focus();
    act(() => {
      showToast({
        title: 'Command cmd_1 cancelled',
        tone: 'info',
        action: { label: 'Undo', onAction: onUndo },
      });
    });
    await screen.findByRole('alertdialog');
    await user.keyboard('{F6}');
    expect(
      screen.getByRole('region', { name: /notification/ }).contains(document.activeElement),
    ).toBe(true);
    while (document.activeElement?.textContent !== 'Undo') await user.tab();
    await user.keyboard('{Enter}');
    expect(onUndo).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(submit);
  });

  it('says a plain outcome politely and interrupts for an Undo offer or a problem', async () => {
    renderPage();
    act(() => {
      showToast({ title: 'Site PLANT-EU-001 bound', tone: 'success' });
      showToast({ title: 'Command cmd_1 not replaced', tone: 'warning' });
      showToast({
        title: 'Command cmd_2 submitted',
        tone: 'success',
        action: { label: 'Undo', onAction: () => undefined },
      });
    });
    const region = await screen.findByRole('region', { name: /notification/ });
    expect(within(region).getByRole('status').textContent).toContain('PLANT-EU-001 bound');
    const alerts = within(region)
      .getAllByRole('alert')
      .map((alert) => alert.textContent);
    expect(alerts.join(' ')).toContain('cmd_1 not replaced');
    expect(alerts.join(' ')).toContain('cmd_2 submitted');
  });

  it('reserves the strip it shows in while toasts show, and gives it back', async () => {
    renderPage();
    act(() => {
      showToast({ title: 'Site PLANT-EU-001 bound', tone: 'success' });
    });
    await screen.findByRole('region', { name: /notification/ });
    expect(document.documentElement.hasAttribute('data-toasts')).toBe(true);
    expect(document.documentElement.style.getPropertyValue('--toast-reserve')).toMatch(/^\d+px$/);
    act(() => clearToasts());
    expect(document.documentElement.hasAttribute('data-toasts')).toBe(false);
    expect(document.documentElement.style.getPropertyValue('--toast-reserve')).toBe('');
  });

  it('goes by itself after its timeout', async () => {
    vi.useFakeTimers();
    renderPage();
    act(() => {
      showToast({ title: 'Site PLANT-EU-001 bound', tone: 'success', timeoutMs: 6000 });
    });
    expect(screen.getByRole('alertdialog')).toBeTruthy();
    act(() => vi.advanceTimersByTime(5000));
    expect(screen.getByRole('alertdialog')).toBeTruthy();
    act(() => vi.advanceTimersByTime(1500));
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('refuses a timeout too short to read and a link outside the app', () => {
    expect(() => showToast({ title: 'Done', tone: 'success', timeoutMs: 1000 })).toThrow();
    expect(() =>
      showToast({ title: 'Done', tone: 'success', link: { label: 'x', to: 'https://x.test' } }),
    ).toThrow();
  });
});
