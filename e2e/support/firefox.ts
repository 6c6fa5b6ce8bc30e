import puppeteer, {
  type Browser,
  type ElementHandle,
  type HTTPRequest,
  type Page,
} from 'puppeteer-core';
import { findFirefox } from '../../scripts/find-firefox.ts';
import { test as demoTest } from './fixtures.ts';
import { REPORT_CSP_VIOLATIONS, type Name, type Role, type UiDriver } from './ui-driver.ts';

/*
 * Firefox for the browser tests: the system Firefox (Debian's firefox-esr, 140 ESR) driven over
 * WebDriver BiDi by Puppeteer, inside Playwright's test runner (the `firefox` project of
 * playwright.config.ts).
 *
 * Not Playwright: its BiDi client (channel `moz-firefox`, playwright-core 1.65) opens every
 * session with `network.addDataCollector`, which Firefox 140 does not know, so the launch fails
 * ("unknown command"); its contexts also set time zone, locale and media emulation through BiDi
 * commands Firefox 140 lacks. Not WebdriverIO: it reaches Firefox through geckodriver, a binary it
 * downloads, which neither Debian nor the npm registry ships. Puppeteer speaks BiDi to Firefox
 * directly, treats a missing data collector as optional, and is already in the tree (lighthouse
 * uses it).
 *
 * Two Puppeteer paths are avoided on purpose: its locators and `waitFor*` build their predicates
 * in the page with `new Function`, which the app's CSP refuses (a test would fail on its own CSP
 * violations), and `setViewport` sends a screen-orientation command Firefox 140 lacks. So the
 * driver waits by polling from here and sizes the window with Firefox's own flags; Firefox runs
 * with `TZ=UTC`, as Chromium runs with `timezoneId: 'UTC'`.
 */

/**
 * How long the driver waits for what a step expects, ms. Not Playwright's 10 s: with three browser
 * test processes on a machine loaded by other runs too, the device page took over 10 s to show its
 * heading after its link was clicked in the Firefox tour.
 */
const WAIT_MS = 20_000;
/**
 * How long the tour waits at most for a page to go half a second without a request of its own,
 * ms. Past the wait the tour goes on: the console's messages are gathered over the whole tour and
 * checked at its end, so a page that is still busy has its errors counted all the same.
 */
const SETTLE_WAIT_MS = 4_000;
/** How long a page goes without a request of its own to count as settled, ms. */
const SETTLE_IDLE_MS = 500;
/**
 * The path of the push stream (src/client/lib/push-stream.ts), one request that stays open while
 * a signed-in page is shown. Puppeteer's own `waitForNetworkIdle` counts it as in flight whenever
 * Firefox reports no response for it, as it did in most runs: every page after sign-in then waited
 * the whole {@link SETTLE_WAIT_MS} with no other request open, about a minute of the tour.
 */
const PUSH_STREAM_PATH = '/api/events';

/**
 * The one uncaught error the automation itself causes: with a preload script (Puppeteer's
 * `evaluateOnNewDocument`, here {@link REPORT_CSP_VIOLATIONS}), Firefox 140 reports "Permission
 * denied to access property "length"" without a stack on some page loads, also on a `data:` page
 * with no script of its own and a preload script of one empty listener (7 of 12 loads; none
 * without the preload script). Page code cannot cause it (it is Firefox's guard between the
 * automation's privileged scope and the page), so it alone is not counted.
 */
const AUTOMATION_NOISE = /^(Error: )?Permission denied to access property "length"$/;
const POLL_MS = 100;

/** Polls `probe` until it returns something other than undefined or false; throws after `timeoutMs`. */
async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined | false>,
  timeoutMs = WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const found = await probe();
      if (found !== undefined && found !== false) return found;
    } catch (error) {
      // the page navigated under the probe: try again
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `Firefox: timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`,
        {
          cause: lastError,
        },
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A Puppeteer ARIA selector for the exact name `name` (quotes escaped). */
const ariaSelector = (role: Role, name?: string) =>
  `::-p-aria(${name === undefined ? '' : `[name="${name.replace(/"/g, '\\"')}"]`}[role="${role}"])`;

/** Run on an element: its box is not empty and it is not hidden by style. */
const IS_VISIBLE = `(element) => {
  const box = element.getBoundingClientRect();
  const style = getComputedStyle(element);
  return box.width > 0 && box.height > 0 && style.visibility !== 'hidden';
}`;

/** Run on an element: the name it is found by (aria-label, its label, else its text). */
const NAME_OF = `(element) => (element.getAttribute('aria-label') ||
  (element.labels && element.labels[0] ? element.labels[0].textContent : '') ||
  element.textContent || '').trim()`;

/**
 * Run on an element: scrolls it to the middle of the window and says whether a click at its
 * centre reaches it, else what is on top of it (as Playwright waits for a click's target).
 */
const HIT_AT_CENTRE = `(element) => {
  element.scrollIntoView({ block: 'center', inline: 'center' });
  const box = element.getBoundingClientRect();
  const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
  return hit && (hit === element || element.contains(hit)) ? '' : (hit ? hit.outerHTML.slice(0, 100) : 'nothing');
}`;

/**
 * Evaluates the function source `fn` on `handle` (as its one argument) and returns its result.
 * Sources, not functions: this file is typed for Node, the functions run in the page; Puppeteer
 * sends the wrapper's source, and the page never compiles a string itself (the CSP forbids it).
 */
const run = <T>(handle: ElementHandle, fn: string): Promise<T> =>
  handle.evaluate(new Function(`return (${fn})(arguments[0]);`) as () => T);

/** The visible elements of `role` named `name` under `scope` (the page or a row). */
async function visibleByRole(
  scope: Page | ElementHandle,
  role: Role,
  name: Name,
): Promise<ElementHandle[]> {
  const candidates = await scope.$$(
    ariaSelector(role, typeof name === 'string' ? name : undefined),
  );
  const found: ElementHandle[] = [];
  for (const candidate of candidates) {
    if (typeof name !== 'string' && !name.test(await run<string>(candidate, NAME_OF))) continue;
    if (await run<boolean>(candidate, IS_VISIBLE)) found.push(candidate);
  }
  return found;
}

/** An error argument of a console call as text (its name, message and stack), else nothing. */
const ERROR_TEXT = (value: unknown): string =>
  value instanceof Error ? `${value.name}: ${value.message} ${value.stack ?? ''}` : '';

/** A {@link UiDriver} on a Puppeteer page of Firefox; records the page's problems from now on. */
export async function firefoxDriver(page: Page, origin: string): Promise<UiDriver> {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Over BiDi an error object among the arguments reads "JSHandle@error": the entry is filled
    // in with the error's own message and stack once the page has told them.
    const at = problems.push(`${page.url()}: ${message.text()}`) - 1;
    void Promise.all(message.args().map((arg) => arg.evaluate(ERROR_TEXT).catch(() => '?'))).then(
      (texts) => {
        if (texts.some((text) => text.length > 0))
          problems[at] = `${problems[at]} [${texts.filter(Boolean).join(' | ')}]`;
      },
    );
  });
  page.on('pageerror', (error) => {
    const message = error instanceof Error ? error.message : String(error);
    if (!AUTOMATION_NOISE.test(message)) problems.push(`${page.url()}: uncaught ${message}`);
  });
  await page.evaluateOnNewDocument(REPORT_CSP_VIOLATIONS);

  // The page's requests in flight but the push stream, and when that set last changed (Puppeteer
  // hands out one object per request).
  const inFlight = new Set<HTTPRequest>();
  let inFlightChangedAtMs = Date.now();
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === PUSH_STREAM_PATH) return;
    inFlight.add(request);
    inFlightChangedAtMs = Date.now();
  });
  const ended = (request: HTTPRequest) => {
    if (inFlight.delete(request)) inFlightChangedAtMs = Date.now();
  };
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  page.on('response', (response) => ended(response.request()));

  const element = async (role: Role, name: Name, row?: string) => {
    const what = `${role} "${name}"${row ? ` in the row of ${row}` : ''}`;
    return until(what, async () => {
      let scope: Page | ElementHandle = page;
      if (row) {
        const rows = await page.$$(ariaSelector('row' as Role));
        const match = [];
        for (const candidate of rows)
          if ((await run<string>(candidate, '(e) => e.textContent || ""')).includes(row))
            match.push(candidate);
        if (!match[0]) return undefined;
        scope = match[0];
      }
      return (await visibleByRole(scope, role, name))[0];
    });
  };
  const field = (label: string) =>
    until(`the field labelled "${label}"`, async () => {
      for (const candidate of await page.$$(`::-p-aria(${label.replace(/[()]/g, '\\$&')})`))
        if (await run<boolean>(candidate, '(e) => /^(INPUT|SELECT|TEXTAREA)$/.test(e.tagName)'))
          return candidate;
      return undefined;
    });

  return {
    browserName: 'firefox',
    goto: async (path) => {
      // The document's requests end with it, whether or not Firefox says so.
      inFlight.clear();
      await page.goto(new URL(path, origin).toString(), { waitUntil: 'load' });
    },
    heading: async (prefix) => {
      await until(`a page heading starting "${prefix}"`, async () => {
        const text = await page.evaluate<[], () => string>(
          "(document.querySelector('h1')?.textContent ?? '').trim()",
        );
        return text.startsWith(prefix);
      });
    },
    see: async (role, name) => {
      await element(role, name);
    },
    count: async (role, name) => (await visibleByRole(page, role, name)).length,
    click: async (role, name, options) => {
      const target = await element(role, name, options?.row);
      let covering = '';
      await until(
        () => `${role} "${name}" to be uncovered (under ${covering})`,
        async () => {
          covering = await run<string>(target, HIT_AT_CENTRE);
          return covering === '';
        },
      );
      await target.click();
    },
    fill: async (label, value) => {
      const input = await field(label);
      await input.focus();
      await page.keyboard.down('Control');
      await page.keyboard.press('a');
      await page.keyboard.up('Control');
      await page.keyboard.press('Backspace');
      if (value) await input.type(value);
    },
    select: async (label, value) => {
      // Not `ElementHandle.select`: Firefox 140 refuses the page access to the array of values it
      // passes ("Permission denied to access property length", an uncaught error in the page).
      const chosen = await run<string>(
        await field(label),
        `(select) => {
          select.value = ${JSON.stringify(value)};
          select.dispatchEvent(new Event('input', { bubbles: true }));
          select.dispatchEvent(new Event('change', { bubbles: true }));
          return select.value;
        }`,
      );
      if (chosen !== value) throw new Error(`Firefox: "${label}" has no option ${value}`);
    },
    press: (key) => page.keyboard.press(key as Parameters<Page['keyboard']['press']>[0]),
    rowContains: async (rowText, text, timeoutMs) => {
      await until(
        `a row holding "${rowText}" to hold "${text}"`,
        async () =>
          (
            await page.evaluate<[], () => string[]>(
              "[...document.querySelectorAll('tr, [role=row]')].map((row) => row.textContent ?? '')",
            )
          ).some((row) => row.includes(rowText) && row.includes(text)),
        timeoutMs,
      );
    },
    statusText: () =>
      page.evaluate<[], () => string>(
        "[...document.querySelectorAll('[role=status], output')].map((e) => e.textContent).join('\\n')",
      ),
    evaluate: <T>(expression: string) => page.evaluate(expression) as Promise<T>,
    // A page may never be idle for half a second for a while: after PLANT-EU-100's 60 devices
    // are bound, the read model reads each within its budget and pushes what it learns, and each
    // push brings the sites page's reads (seen for over 30 s in Firefox). Settling is a wait
    // before the console is read, not a check: past the wait, the tour goes on.
    settle: async () => {
      const deadline = Date.now() + SETTLE_WAIT_MS;
      while (
        (inFlight.size > 0 || Date.now() - inFlightChangedAtMs < SETTLE_IDLE_MS) &&
        Date.now() < deadline
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
    },
    cookieHeader: async () =>
      (await page.browserContext().cookies()).map((c) => `${c.name}=${c.value}`).join('; '),
    problems: () => problems,
  };
}

/**
 * The `firefox` project's test: the demo stack's fixtures (a fresh sandbox per test), one Firefox
 * per worker, and `ui`, a {@link UiDriver} on a page of a new browser context per test.
 */
export const test = demoTest.extend<{ ui: UiDriver }, { firefox: Browser }>({
  firefox: [
    // Playwright reads the fixture's dependencies from this destructuring, so it must stay.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const browser = await puppeteer.launch({
        browser: 'firefox',
        executablePath: findFirefox(),
        headless: true,
        defaultViewport: null,
        args: ['--width=1440', '--height=900'],
        env: { ...process.env, TZ: 'UTC' },
      });
      try {
        await use(browser);
      } finally {
        await browser.close();
      }
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  ui: async ({ firefox, baseURL }, use) => {
    const context = await firefox.createBrowserContext();
    try {
      const page = await context.newPage();
      await use(await firefoxDriver(page, baseURL ?? ''));
    } finally {
      await context.close();
    }
  },
});

export { expect } from '@playwright/test';
