import { render, screen } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import '#client/testing/render.tsx';
import {
  dateTimeField,
  dateTimeSegment,
  describedText,
  shownDateTime,
  typeDateTime,
} from '#client/testing/form-fields.ts';
import { DEFAULT_HISTORY_SEARCH, type HistorySearch } from '../../lib/history-search.ts';
import { HistoryControls } from '../history-controls.tsx';

/** The controls on a custom range, on Berlin's clock; `onChange` gets what goes to the URL. */
function renderControls(from: string | undefined, to: string | undefined) {
  const onChange = vi.fn<(next: Partial<HistorySearch>) => void>();
  const search: HistorySearch = { ...DEFAULT_HISTORY_SEARCH, range: 'custom', from, to };
  render(
    <HistoryControls
      search={search}
      timeZone="Europe/Berlin"
      shownRange={undefined}
      onChange={onChange}
    />,
  );
  return onChange;
}

/** Shows the range typed and checks it goes to the URL as the custom range `from` to `to` (UTC). */
async function expectRangeShown(
  user: UserEvent,
  onChange: ReturnType<typeof renderControls>,
  from: string,
  to: string,
) {
  await user.click(screen.getByRole('button', { name: 'Show range' }));
  expect(onChange).toHaveBeenCalledWith({ range: 'custom', from, to, page: 1 });
}

describe('history custom range controls', () => {
  it("shows the range on the site's clock, 24-hour, with the offset and the UTC equivalent", () => {
    renderControls('2026-10-09T22:00:00Z', '2026-10-20T12:30:00Z');
    expect(shownDateTime('From')).toBe('2026-10-10, 00:00 GMT+2');
    expect(shownDateTime('To')).toBe('2026-10-20, 14:30 GMT+2');
    expect(describedText(dateTimeField('To'))).toContain('UTC 2026-10-20 12:30');
    expect(document.querySelector('legend')?.textContent).toBe(
      'Custom range on the clock of time zone Europe/Berlin, at most 30 days',
    );
  });

  it('gives a range typed in site time to the URL as UTC instants', async () => {
    const user = userEvent.setup();
    const onChange = renderControls('2026-10-09T22:00:00Z', '2026-10-20T12:30:00Z');
    await typeDateTime(user, 'From', { hour: '14' });
    // To 2026-11-03 09:15 in Berlin, after the autumn change (UTC+1).
    await typeDateTime(user, 'To', { month: '11', day: '03', hour: '09', minute: '15' });
    await expectRangeShown(user, onChange, '2026-10-10T12:00:00Z', '2026-11-03T08:15:00Z');
  });

  it('refuses 30 calendar days over the autumn change (30 days 1 h) in words, and takes 29', async () => {
    const user = userEvent.setup();
    const onChange = renderControls('2026-10-09T22:00:00Z', '2026-10-19T22:00:00Z');
    await typeDateTime(user, 'To', { month: '11', day: '09' });
    expect(shownDateTime('To')).toBe('2026-11-09, 00:00 GMT+1');
    await user.click(screen.getByRole('button', { name: 'Show range' }));

    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe(
      'Range refused: This range is 30 days 1 h long; the range may be at most 30 days; shorten it or split it into several queries.',
    );
    expect(document.activeElement).toBe(alert);
    expect(dateTimeSegment('To', /day/i).getAttribute('aria-invalid')).toBe('true');
    expect(describedText(dateTimeField('From'))).toContain('30 days 1 h');
    expect(onChange).not.toHaveBeenCalled();

    await typeDateTime(user, 'To', { day: '08' });
    expect(screen.queryByRole('alert')).toBeNull();
    await expectRangeShown(user, onChange, '2026-10-09T22:00:00Z', '2026-11-07T23:00:00Z');
  });

  it('asks for the start while it is empty', async () => {
    const user = userEvent.setup();
    const onChange = renderControls(undefined, '2026-10-19T22:00:00Z');
    await user.click(screen.getByRole('button', { name: 'Show range' }));
    expect(screen.getByRole('alert').textContent).toBe(
      'Range refused: Enter the start as a date and a time.',
    );
    expect(onChange).not.toHaveBeenCalled();
  });
});
