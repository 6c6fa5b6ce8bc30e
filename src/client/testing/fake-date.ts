import { afterEach, beforeEach, vi } from 'vitest';

/**
 * Sets the clock to `iso` for each test of the enclosing `describe`, faking only `Date`: timers
 * stay real, so polls and Testing Library's waits run as in the browser. Import the modules that
 * use `@date-fns/tz` before a test fakes `Date` (src/client/README.md, Tests).
 */
export function fakeDateAt(iso: string): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(iso));
  });
  afterEach(() => vi.useRealTimers());
}
