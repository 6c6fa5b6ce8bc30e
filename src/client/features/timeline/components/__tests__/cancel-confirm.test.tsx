import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { StatusRecord } from '#domain/command.ts';
import { renderWithProviders } from '#client/testing/render.tsx';
import { CancelConfirm } from '../cancel-confirm.tsx';

const record = (status: StatusRecord['status']): StatusRecord => ({
  id: 'cmd_1',
  deviceId: 'BAT-1',
  status,
  powerControl: { targetBatteryPowerW: 3000 },
  startTime: '2026-11-21T13:00:00Z',
  endTime: '2026-11-21T15:00:00Z',
  receivedAt: '2026-11-21T12:00:00Z',
});

/** The confirmation before cancelling a command with `status`. */
const renderConfirm = (status: StatusRecord['status']) =>
  renderWithProviders(
    <CancelConfirm
      record={record(status)}
      deviceName="Hall A battery"
      timeZone="Europe/Berlin"
      onConfirm={vi.fn()}
      onDismiss={vi.fn()}
    />,
  );

describe('CancelConfirm', () => {
  it('promises no undo for an executing command: it stops at once, for good', () => {
    renderConfirm('executing');
    const dialog = screen.getByRole('alertdialog');
    expect(dialog.textContent).toContain('cannot be undone');
    expect(dialog.textContent).not.toContain('Undo sends');
  });

  it('says Undo can send a waiting command again', () => {
    renderConfirm('received');
    expect(screen.getByRole('alertdialog').textContent).toContain('Undo sends the same command');
  });
});
