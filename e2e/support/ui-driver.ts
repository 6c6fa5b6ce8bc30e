import { expect, type Page } from '@playwright/test';

/** The roles the tests find elements by (WAI-ARIA), as operators and assistive technology do. */
export type Role =
  | 'button'
  | 'link'
  | 'heading'
  | 'checkbox'
  | 'dialog'
  | 'alertdialog'
  | 'grid'
  | 'region'
  | 'textbox';

/** An accessible name: the whole name, or a pattern of it. */
export type Name = string | RegExp;

/**
 * What a browser test does on the app's pages, written once for both of the suite's drivers:
 * Playwright driving Chromium ({@link playwrightDriver}) and Puppeteer driving Firefox over
 * WebDriver BiDi (`e2e/support/firefox.ts` says why not Playwright there). Elements are found
 * by role and accessible name; every wait is bounded (10 s unless said).
 */
export interface UiDriver {
  readonly browserName: 'chromium' | 'firefox';
  /** Opens a path of the app, relative to the demo stack's origin. */
  goto(path: string): Promise<void>;
  /** Waits until the page's `h1` starts with `prefix` (a route error's heading does not). */
  heading(prefix: string): Promise<void>;
  /** Waits until an element of `role` named `name` is visible. */
  see(role: Role, name: Name): Promise<void>;
  /** How many elements of `role` named `name` are visible now (no wait). */
  count(role: Role, name: Name): Promise<number>;
  /** Clicks the element of `role` named `name`; with `row`, the one in the table row holding it. */
  click(role: Role, name: Name, options?: { row?: string }): Promise<void>;
  /** Replaces the value of the form field labelled `label` (exact) by `value`. */
  fill(label: string, value: string): Promise<void>;
  /** Chooses the option whose value is `value` in the select labelled `label`. */
  select(label: string, value: string): Promise<void>;
  /** Presses a key on the focused element (`Escape`, `Enter`...). */
  press(key: string): Promise<void>;
  /** Waits until a table row holding `rowText` also holds `text`. */
  rowContains(rowText: string, text: string, timeoutMs?: number): Promise<void>;
  /** The text of the page's status live regions, one line each. */
  statusText(): Promise<string>;
  /** Runs a JavaScript expression in the page (this file is typed for Node). */
  evaluate<T>(expression: string): Promise<T>;
  /** Waits until the page has made no request for half a second (at most 10 s). */
  settle(): Promise<void>;
  /** The `Cookie` header this browser sends to the app. */
  cookieHeader(): Promise<string>;
  /**
   * What went wrong in the page so far, one line each: console errors, uncaught errors and
   * CSP violations (reported by {@link REPORT_CSP_VIOLATIONS}).
   */
  problems(): readonly string[];
}

/**
 * An init script (runs in every document before the app): each CSP violation, the DOM's own
 * report of it, becomes a console error that names what was blocked, so a test fails on it in
 * every browser. Chromium also logs violations itself; Firefox's own messages do not reach the
 * console events of an automation client.
 */
export const REPORT_CSP_VIOLATIONS = `document.addEventListener('securitypolicyviolation', (e) => {
  console.error('CSP violation: ' + e.effectiveDirective + ' blocked ' + (e.blockedURI || 'an inline resource') +
    ' at ' + e.sourceFile + ':' + e.lineNumber + (e.sample ? ' (' + e.sample + ')' : ''));
});`;

/**
 * Whether a console line is Chromium's own network log of an API answer with an error status
 * ("Failed to load resource: the server responded with a status of 401"): Chromium writes one for
 * every such answer, which the app reads and handles (a refused sign-in, a conflict, the session
 * checks after sign-out), and Firefox writes none. Not a script error or a CSP violation, so the
 * tour does not count it; a failed page or asset load still counts.
 */
function isApiRefusalLine(text: string, url: string): boolean {
  if (!text.startsWith('Failed to load resource: the server responded with a status of '))
    return false;
  try {
    return new URL(url).pathname.startsWith('/api/');
  } catch {
    return false;
  }
}

/** `text` as a pattern that matches it literally. */
export const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A {@link UiDriver} on a Playwright page; records the page's problems from now on. */
export async function playwrightDriver(page: Page): Promise<UiDriver> {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error' || isApiRefusalLine(message.text(), message.location().url))
      return;
    problems.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`${page.url()}: uncaught ${error.message}`));
  await page.addInitScript({ content: REPORT_CSP_VIOLATIONS });
  const byRole = (role: Role, name: Name, row?: string) =>
    (row ? page.getByRole('row').filter({ hasText: row }) : page)
      .getByRole(role, { name, exact: typeof name === 'string' })
      .first();
  return {
    browserName: 'chromium',
    goto: async (path) => {
      await page.goto(path);
    },
    heading: (prefix) =>
      expect(page.locator('h1').first()).toHaveText(new RegExp(`^\\s*${literally(prefix)}`)),
    see: (role, name) => expect(byRole(role, name)).toBeVisible(),
    count: (role, name) =>
      page
        .getByRole(role, { name, exact: typeof name === 'string' })
        .filter({ visible: true })
        .count(),
    click: (role, name, options) => byRole(role, name, options?.row).click(),
    fill: (label, value) => page.getByLabel(label, { exact: true }).fill(value),
    select: async (label, value) => {
      await page.getByLabel(label, { exact: true }).selectOption(value);
    },
    press: (key) => page.keyboard.press(key),
    rowContains: (rowText, text, timeoutMs) =>
      expect(page.getByRole('row').filter({ hasText: rowText }).first()).toContainText(text, {
        ...(timeoutMs ? { timeout: timeoutMs } : {}),
      }),
    statusText: async () => (await page.getByRole('status').allTextContents()).join('\n'),
    evaluate: (expression) => page.evaluate(expression),
    settle: () => page.waitForLoadState('networkidle', { timeout: 10_000 }),
    cookieHeader: async () =>
      (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; '),
    problems: () => problems,
  };
}
