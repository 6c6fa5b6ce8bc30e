import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import '#client/testing/render.tsx';
import { OutcomeCheckingStatus } from '../outcome-checking-status.tsx';

const NOW_MS = Date.parse('2026-11-21T00:50:00Z');

beforeEach(() => {
  vi.useFakeTimers({ now: NOW_MS, toFake: ['Date', 'setInterval', 'clearInterval'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('OutcomeCheckingStatus', () => {
  it('says the outcome is not known yet and counts down to the next check, as a status', () => {
    render(
      <OutcomeCheckingStatus
        checking={{ state: 'checking', nextTryAtMs: NOW_MS + 8_000 }}
        what="the command"
        onStop={() => undefined}
      />,
    );
    const status = screen.getByRole('status');
    expect(status.textContent).toContain('Outcome not known yet: checking again in 8 s.');
    act(() => vi.advanceTimersByTime(3_000));
    expect(status.textContent).toContain('checking again in 5 s.');
    act(() => vi.advanceTimersByTime(5_000));
    expect(status.textContent).toContain('checking now');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(status.textContent).not.toMatch(/refused|not accepted|HTTP|POST|Retry-After/i);
  });

  it('offers to stop checking, and once stopped says what that leaves', async () => {
    vi.useRealTimers();
    const onStop = vi.fn();
    const { rerender } = render(
      <OutcomeCheckingStatus
        checking={{ state: 'checking', nextTryAtMs: undefined }}
        what="the batch"
        onStop={onStop}
      />,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Stop checking' }));
    expect(onStop).toHaveBeenCalledOnce();

    rerender(
      <OutcomeCheckingStatus checking={{ state: 'stopped' }} what="the batch" onStop={onStop} />,
    );
    expect(screen.getByRole('status').textContent).toContain('Stopped checking.');
    expect(screen.getByRole('status').textContent).toContain(
      'Whether the batch was taken is not known yet',
    );
    expect(screen.queryByRole('button', { name: 'Stop checking' })).toBeNull();
  });

  it('shows nothing while no outcome is open', () => {
    const { container } = render(
      <OutcomeCheckingStatus
        checking={{ state: 'idle' }}
        what="the command"
        onStop={() => undefined}
      />,
    );
    expect(container.innerHTML).toBe('');
  });
});
