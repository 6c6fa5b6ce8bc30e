import { test, expect } from './support/fixtures.ts';
import { INLINE_STYLES, visitEveryPage } from './support/every-page.ts';
import { playwrightDriver } from './support/ui-driver.ts';

/*
 * No page of the SPA logs a console error, throws, or trips the CSP (React Aria's injected
 * styles, zod's code generation). The same tour runs in Firefox: e2e/firefox/console-errors.spec.ts.
 */

test('no page logs a console error or a CSP violation in Chromium', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const ui = await playwrightDriver(page);
  await visitEveryPage(ui, async (name) => {
    if (name === 'device with a command')
      expect(await ui.evaluate<string[]>(INLINE_STYLES)).toContain('react-aria-pressable-style: 1');
  });
  expect(ui.problems()).toEqual([]);
});
