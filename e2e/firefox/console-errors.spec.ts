import { INLINE_STYLES, visitEveryPage } from '../support/every-page.ts';
import { expect, test } from '../support/firefox.ts';

/* The tour of e2e/console-errors.spec.ts in Firefox: no console error, no uncaught error, no CSP violation. */

test('no page logs a console error or a CSP violation in Firefox', async ({ ui }) => {
  // Nineteen pages, each settled (half a second without a request, or 15 s): 56 s alone on the
  // 2-core machine. Beside the other projects' workers of a clean-clone run it reached its third
  // page after 52 s (21 s alone), and 120 s ran out before the end; beside a second browser test
  // process on a machine loaded by other runs too, 240 s did.
  test.setTimeout(420_000);
  await visitEveryPage(ui, async (name) => {
    if (name === 'device with a command')
      expect(await ui.evaluate<string[]>(INLINE_STYLES)).toContain('react-aria-pressable-style: 1');
  });
  expect(ui.problems()).toEqual([]);
});
