import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** The serious and critical axe violations of the page as it is, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const scan = await new AxeBuilder({ page }).analyze();
  return scan.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Fails on any serious or critical axe violation of the page as it is. */
export async function expectNoSeriousAxeViolations(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
}
