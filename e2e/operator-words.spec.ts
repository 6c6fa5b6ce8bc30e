import { test, expect, signIn, bindSite } from './support/fixtures.ts';
import { visitEveryPage } from './support/every-page.ts';
import { technicalWords, VISIBLE_TEXT } from './support/operator-words.ts';
import { playwrightDriver } from './support/ui-driver.ts';

/*
 * Every page speaks the operator's words: its visible text (toasts and the dialogs the tour opens
 * included) holds no HTTP method, URL path, header name or schema field name.
 */

test('no page shows an HTTP method, a path, a header or a field name', async ({ page }) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const ui = await playwrightDriver(page);
  const findings: string[] = [];
  await visitEveryPage(ui, async (name) => {
    const { text, typed } = await ui.evaluate<{ text: string; typed: string[] }>(VISIBLE_TEXT);
    for (const word of technicalWords(text, typed))
      findings.push(`${name}: ${word.what} "${word.text}" in "…${word.context}…"`);
  });
  expect(findings).toEqual([]);
});

test('Ctrl+Z on the timeline with nothing to undo says so, in words', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await bindSite(page, 'PLANT-EU-001');
  await page.goto('/timeline');
  const grid = page.getByRole('grid', { name: 'Command timeline' });
  await expect(grid).toBeVisible();
  await grid.focus();
  await page.keyboard.press('Control+z');
  const toast = page.getByRole('alertdialog', { name: /Nothing to undo/ });
  await expect(toast).toContainText('none is left to undo here');
  const { text, typed } = await page.evaluate<{ text: string; typed: string[] }>(VISIBLE_TEXT);
  expect(technicalWords(text, typed)).toEqual([]);
});
