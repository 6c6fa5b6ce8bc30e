import { INLINE_STYLES, visitEveryPage } from '../support/every-page.ts';
import { expect, test } from '../support/firefox.ts';

/* The tour of e2e/console-errors.spec.ts in Firefox: no console error, no uncaught error, no CSP violation. */

test('no page logs a console error or a CSP violation in Firefox', async ({ ui }) => {
  // Nineteen pages, each settled (half a second without a request but the push stream, or 4 s:
  // SETTLE_WAIT_MS of e2e/support/firefox.ts): 60 s on the 2-core machine loaded by other runs;
  // beside a second browser test process on a machine loaded by other runs too, it has taken 240 s.
  test.setTimeout(300_000);
  await visitEveryPage(ui, async (name) => {
    if (name === 'device with a command')
      expect(await ui.evaluate<string[]>(INLINE_STYLES)).toContain('react-aria-pressable-style: 1');
  });
  expect(ui.problems()).toEqual([]);
});
