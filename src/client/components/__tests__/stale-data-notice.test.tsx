import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import '../../testing/render.tsx';
import { ApiError } from '../../lib/api-error.ts';
import { StaleDataNotice, type StaleDataQuery } from '../stale-data-notice.tsx';

const LOADED_AT = Date.parse('2026-11-23T09:42:00Z');
const UNAVAILABLE = new ApiError({
  status: 503,
  code: 'unavailable',
  title: 'Upstream unavailable',
});

const query = (overrides: Partial<StaleDataQuery>): StaleDataQuery => ({
  data: { sites: [] },
  dataUpdatedAt: LOADED_AT,
  isRefetchError: false,
  isFetching: false,
  failureCount: 0,
  failureReason: null,
  refetch: vi.fn(),
  ...overrides,
});

describe('StaleDataNotice', () => {
  it('says nothing while the data is fresh or refreshing without trouble', () => {
    const { container } = render(
      <StaleDataNotice query={query({ isFetching: true })} what="the site list" />,
    );
    expect(container.textContent).toBe('');
  });

  it('speaks up at the first failed attempt, while retries are under way', () => {
    render(
      <StaleDataNotice
        query={query({ isFetching: true, failureCount: 1, failureReason: UNAVAILABLE })}
        what="the site list"
        timeZone="Europe/Berlin"
      />,
    );
    const notice = screen.getByRole('status');
    expect(notice.textContent).toContain(
      "Could not refresh the site list: the vendor's service is not answering.",
    );
    expect(notice.textContent).toContain(
      'Showing the site list as of 2026-11-23 10:42 (Europe/Berlin; UTC 2026-11-23 09:42).',
    );
    expect(notice.textContent).toContain('Trying again…');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('after the retries gave up, says when it tries again and offers to try now', async () => {
    const refetch = vi.fn();
    render(
      <StaleDataNotice
        query={query({
          isRefetchError: true,
          failureCount: 3,
          failureReason: UNAVAILABLE,
          refetch,
        })}
        what="the site list"
        timeZone="Europe/Berlin"
        autoRetryMs={15_000}
      />,
    );
    expect(screen.getByRole('status').textContent).toContain(
      'powerdeck tries again every 15 seconds.',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Try again now' }));
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('leaves a first load that failed to the page (nothing cached, nothing stale)', () => {
    const { container } = render(
      <StaleDataNotice
        query={query({ data: undefined, isRefetchError: false, failureReason: UNAVAILABLE })}
        what="the site list"
      />,
    );
    expect(container.textContent).toBe('');
  });
});
