// Opens each kit's built page (dist/<kit>/all) in Chromium under the app's CSP, and records by
// keyboard what each component does, axe's serious and critical violations with each overlay
// open, and what the CSP blocked. The browser runs in UTC with an en-US locale; the site zone is
// Europe/Berlin. Usage: node scripts/check.mjs [kit ...]  (after node scripts/build.mjs)
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import AxeBuilder from '@axe-core/playwright';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KITS = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['native', 'rac-en', 'radix', 'mantine', 'mantine-tuned'];
// The BFF's policy (src/server/http/security-headers.ts), sent with every file.
const CSP =
  "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;connect-src 'self';" +
  "frame-ancestors 'none';base-uri 'self';form-action 'self'";
const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
};
const TYPED = '2026-11-23 14:05';
const EXPECTED_ISO = '2026-11-23T13:05:00.000Z';
const TOAST_TIMEOUT_MS = 8000;

function serve(dir) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) {
      file = join(dir, 'index.html');
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-security-policy': CSP,
    });
    res.end(readFileSync(file));
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

async function axe(page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  return {
    seriousOrCritical: bad.reduce((n, v) => n + v.nodes.length, 0),
    rules: bad.map((v) => `${v.id} (${v.impact}, ${v.nodes.length})`),
    targets: bad.flatMap((v) => v.nodes.slice(0, 3).map((n) => `${v.id}: ${n.target.join(' ')}`)),
    other: violations.filter((v) => !bad.includes(v)).map((v) => `${v.id} (${v.impact})`),
  };
}

// What has focus: its role, name and whether it is inside `selector`'s element.
const focused = (page, within) =>
  page.evaluate((within) => {
    const a = document.activeElement;
    const box = within ? document.querySelector(within) : null;
    return {
      tag: a?.tagName.toLowerCase(),
      role: a?.getAttribute('role'),
      text: (a?.getAttribute('aria-label') || a?.textContent || '').trim().slice(0, 40),
      inside: box ? box.contains(a) : null,
    };
  }, within);

async function mark(page, locator, attr) {
  await locator.evaluate((el, attr) => el.setAttribute(attr, ''), attr);
  return `[${attr}]`;
}

async function tabCycle(page, sel, presses = 8) {
  const seen = [];
  let trapped = true;
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press(i < presses - 2 ? 'Tab' : 'Shift+Tab');
    const f = await focused(page, sel);
    seen.push(f.text || f.tag);
    if (!f.inside) trapped = false;
  }
  return { trapped, seen };
}

async function dateField(page, kit) {
  const input = page.getByTestId('date-input');
  if (kit === 'native') {
    await input.focus(); // the en-US field: mm dd yyyy, then hh mm AM/PM
    for (const k of '11232026') await page.keyboard.press(k);
    await page.keyboard.press('ArrowRight');
    for (const k of '0205P') await page.keyboard.press(k);
  } else if (kit.startsWith('rac')) {
    await input.locator('[role=spinbutton]').first().focus();
    await page.keyboard.type(TYPED.replace(/\D/g, '')); // segments advance by themselves
  } else {
    const field = kit === 'mantine' ? page.getByLabel('Start (site time)') : input;
    await field.focus();
    await page.keyboard.type(TYPED);
    await page.keyboard.press('Tab');
  }
  await sleep(200);
  const shown =
    kit === 'native'
      ? await input.inputValue()
      : kit.startsWith('rac')
        ? (await input.innerText()).replace(/\s+/g, ' ').replace(/[\u2066-\u2069]/g, '')
        : await page.getByLabel('Start (site time)').inputValue();
  const section = page.locator('section', { has: page.getByTestId('datefield-result') });
  const sectionText = (await section.innerText()).replace(/\s+/g, ' ');
  const iso = await page.getByTestId('datefield-result').innerText();
  return {
    typed: kit === 'native' ? '11/23/2026 02:05 PM (the only way in en-US)' : TYPED,
    shown,
    iso,
    isoOk: iso === EXPECTED_ISO,
    twentyFourHour:
      kit === 'native' ? false : /14:05/.test(shown.replace(/\s/g, '')) && !/[AP]M/i.test(shown),
    zoneVisible: /Berlin|CET|GMT\+1/.test(sectionText),
    zoneInField: /CET|GMT\+1|Berlin/.test(shown),
  };
}

async function dialog(page) {
  const opener = page.getByRole('button', { name: 'New command' });
  await opener.focus();
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog', { name: 'New command' });
  await dlg.waitFor({ timeout: 3000 });
  const sel = await mark(page, dlg, 'data-probe-dialog');
  const afterOpen = await focused(page, sel);
  const cycle = await tabCycle(page, sel);
  const scan = await axe(page);
  await page.keyboard.press('Escape');
  await dlg.waitFor({ state: 'hidden', timeout: 3000 }).catch(() => {});
  const closedByEscape = !(await dlg.isVisible());
  const afterEscape = await focused(page);
  // Submit by keyboard: open again, Tab to Submit, Enter.
  await opener.focus();
  await page.keyboard.press('Enter');
  await dlg.waitFor({ timeout: 3000 });
  await page.getByRole('button', { name: 'Submit' }).focus();
  await page.keyboard.press('Enter');
  await sleep(300);
  return {
    focusMovedIn: afterOpen.inside,
    trapped: cycle.trapped,
    tabOrder: cycle.seen.join(' > '),
    closedByEscape,
    focusReturned: afterEscape.text === 'New command',
    submitted: await page.getByTestId('dialog-result').innerText(),
    focusAfterSubmit: (await focused(page)).text,
    axe: scan,
  };
}

async function drawer(page) {
  const opener = page.getByRole('button', { name: 'Details' });
  await opener.focus();
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog', { name: 'Command details' });
  await dlg.waitFor({ timeout: 3000 });
  const sel = await mark(page, dlg, 'data-probe-drawer');
  const afterOpen = await focused(page, sel);
  const ariaModal = await dlg.getAttribute('aria-modal');
  const pageHidden = await page.evaluate(
    () =>
      !!document.querySelector(
        'main[aria-hidden=true], #root[aria-hidden=true], main[inert], #root[inert]',
      ),
  );
  const scan = await axe(page);
  if (!afterOpen.inside) await dlg.getByRole('button', { name: 'Close' }).focus();
  await page.keyboard.press('Escape');
  await sleep(400);
  const closedByEscape = !(await dlg.isVisible());
  const afterEscape = await focused(page);
  // Non-modal: can Tab leave the open drawer for the page?
  await opener.focus();
  await page.keyboard.press('Enter');
  await dlg.waitFor({ timeout: 3000 });
  await mark(page, dlg, 'data-probe-drawer');
  const cycle = await tabCycle(page, sel, 6);
  const stillOpen = await dlg.isVisible();
  if (stillOpen) {
    await dlg.getByRole('button', { name: 'Close' }).focus();
    await page.keyboard.press('Enter');
    await sleep(400);
  }
  return {
    focusMovedIn: afterOpen.inside,
    ariaModal,
    pageHiddenFromAT: pageHidden,
    closedByEscape,
    focusReturned: afterEscape.text === 'Details',
    tabLeavesDrawer: !cycle.trapped,
    openAfterTabbingOut: stillOpen,
    axe: scan,
  };
}

async function tooltip(page) {
  const button = page.getByRole('button', { name: 'Zoom in', exact: true });
  await button.focus();
  await page.keyboard.press('Shift+Tab');
  const t0 = Date.now();
  await page.keyboard.press('Tab');
  const tip = page.getByRole('tooltip');
  const shown = await tip
    .first()
    .waitFor({ timeout: 3000 })
    .then(() => true)
    .catch(() => false);
  const delayMs = Date.now() - t0;
  if (!shown) return { shownOnFocus: false };
  await sleep(300); // let a position/transition settle
  const b = await button.boundingBox();
  const t = await tip.first().boundingBox();
  const overlap =
    Math.max(0, Math.min(b.x + b.width, t.x + t.width) - Math.max(b.x, t.x)) *
    Math.max(0, Math.min(b.y + b.height, t.y + t.height) - Math.max(b.y, t.y));
  const describedBy = await button.getAttribute('aria-describedby');
  const scan = await axe(page);
  await page.keyboard.press('Escape');
  await sleep(300);
  return {
    shownOnFocus: true,
    delayMs,
    coversButtonPx: Math.round(overlap),
    gapPx: Math.round(t.y - (b.y + b.height)),
    describedBy: !!describedBy,
    hiddenByEscape: !(await tip
      .first()
      .isVisible()
      .catch(() => false)),
    axe: scan,
  };
}

async function toast(page) {
  const trigger = page.getByRole('button', { name: 'Cancel command' });
  // Short-lived: a toast nobody touches is gone after its timeout.
  await trigger.focus();
  await page.keyboard.press('Enter');
  await page.getByText('Command cancelled', { exact: true }).first().waitFor({ timeout: 3000 });
  await sleep(TOAST_TIMEOUT_MS + 1500);
  const autoDismissed = !(await page
    .getByText('Command cancelled', { exact: true })
    .first()
    .isVisible()
    .catch(() => false));
  await trigger.focus();
  await page.keyboard.press('Enter');
  const text = page.getByText('Command cancelled', { exact: true }).first();
  await text.waitFor({ timeout: 3000 });
  await sleep(300);
  const semantics = await page.evaluate(() => {
    const el = [...document.querySelectorAll('body *')].find(
      (e) => e.childElementCount === 0 && e.textContent.trim() === 'Command cancelled',
    );
    const chain = [];
    for (let n = el; n && n !== document.body; n = n.parentElement) {
      const role = n.getAttribute('role');
      const live = n.getAttribute('aria-live');
      if (role || live)
        chain.push(
          `${n.tagName.toLowerCase()}${role ? `[role=${role}]` : ''}${live ? `[aria-live=${live}]` : ''}${n.getAttribute('aria-label') ? `[aria-label="${n.getAttribute('aria-label')}"]` : ''}`,
        );
    }
    const liveElsewhere = [...document.querySelectorAll('[aria-live],[role=status],[role=alert]')]
      .filter((n) => n.textContent.includes('Command cancelled') && !n.contains(el))
      .map(
        (n) =>
          `${n.tagName.toLowerCase()}[role=${n.getAttribute('role')}][aria-live=${n.getAttribute('aria-live')}]`,
      );
    return { chain: chain.join(' < '), announcedVia: liveElsewhere };
  });
  const scan = await axe(page);
  // Reach Undo by keyboard: F6 (landmark cycling, RAC), then F8 (Radix's hotkey), then Tab.
  const undo = page.getByRole('button', { name: /Undo/ }).first();
  const undoSel = await mark(page, undo, 'data-probe-undo');
  const keys = [];
  let reached = false;
  for (const key of ['F6', 'F8', 'Tab', 'Tab', 'Tab']) {
    await page.keyboard.press(key);
    await sleep(100);
    const f = await focused(page, undoSel);
    keys.push(`${key}->${f.role ?? f.tag}:${f.text.slice(0, 20)}`);
    if (f.inside) {
      reached = true;
      break;
    }
  }
  if (reached) await page.keyboard.press('Enter');
  await sleep(400);
  const undone = await page.getByTestId('toast-result').innerText();
  const focusAfter = await focused(page);
  // The same after a toast was reached and closed by keyboard.
  await trigger.focus();
  await page.keyboard.press('Enter');
  await text.waitFor({ timeout: 3000 });
  await page.mouse.move(0, 0);
  await sleep(TOAST_TIMEOUT_MS + 1500);
  const autoDismissedAfterUndo = !(await page
    .getByText('Command cancelled', { exact: true })
    .first()
    .isVisible()
    .catch(() => false));
  return {
    semantics,
    undoReached: reached ? keys.join(', ') : `not within ${keys.join(', ')}`,
    undone: undone === 'undone',
    focusAfterUndo: focusAfter.text,
    autoDismissed,
    autoDismissedAfterUndo,
    axe: scan,
  };
}

async function menu(page) {
  const opener = page.getByRole('button', { name: 'Actions' });
  await opener.focus();
  await page.keyboard.press('Enter');
  const m = page.getByRole('menu');
  const open = await m
    .waitFor({ timeout: 2000 })
    .then(() => true)
    .catch(() => false);
  const first = await focused(page);
  const scan = open ? await axe(page) : null;
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await sleep(300);
  return {
    menuRole: open,
    focusOnOpen: `${first.role ?? first.tag}: ${first.text}`,
    chosenWithArrowDownEnter: await page.getByTestId('menu-result').innerText(),
    focusReturned: (await focused(page)).text === 'Actions',
    axe: scan,
  };
}

async function combobox(page, kit) {
  const keys = [];
  if (kit === 'radix') {
    await page.getByRole('button', { name: /Device/ }).focus();
    await page.keyboard.press('Enter');
    keys.push('Enter (open popover)');
  } else {
    await page.getByRole('combobox', { name: 'Device' }).focus();
  }
  await page.keyboard.type('BAT-042');
  keys.push('type BAT-042');
  await sleep(400);
  const options = await page
    .getByRole('option')
    .evaluateAll((els) => els.filter((e) => e.offsetParent).length);
  const optionNames = await page.getByRole('option').evaluateAll((els) =>
    els
      .filter((e) => e.offsetParent)
      .slice(0, 3)
      .map((e) => e.textContent.trim()),
  );
  const scan = options ? await axe(page) : null;
  // Is an option already highlighted (then Enter alone selects it)?
  const active = await page.evaluate(() => {
    const a = document.activeElement;
    const id = a?.getAttribute('aria-activedescendant');
    const byId = id ? document.getElementById(id)?.textContent.trim() : null;
    const marked = document.querySelector(
      '[role=option][aria-selected=true], [role=option][data-selected=true], [role=option][data-combobox-selected]',
    );
    return byId || marked?.textContent.trim() || null;
  });
  if (!active) {
    await page.keyboard.press('ArrowDown');
    keys.push('ArrowDown');
  }
  await page.keyboard.press('Enter');
  keys.push('Enter');
  await sleep(300);
  const result = await page.getByTestId('combobox-result').innerText();
  // A site name: how many of the 60 stay?
  let siteMatches = null;
  if (kit !== 'native') {
    if (kit === 'radix') {
      await page.getByRole('button', { name: /Device/ }).focus();
      await page.keyboard.press('Enter');
    } else {
      await page.getByRole('combobox', { name: 'Device' }).focus();
      await page.keyboard.press('ControlOrMeta+a');
    }
    await page.keyboard.type('Leipzig');
    await sleep(400);
    siteMatches = await page
      .getByRole('option')
      .evaluateAll((els) => els.filter((e) => e.offsetParent).length);
    await page.keyboard.press('Escape');
  }
  return {
    highlightedAfterTyping: active,
    optionsAfterTyping: options,
    firstOptions: optionNames,
    keys: keys.join(', '),
    selected: result,
    selectedOk: result === 'BAT-042',
    optionsForLeipzig: siteMatches,
    axe: scan,
  };
}

async function run(kit, browser) {
  const dir = join(root, 'dist', kit, 'all');
  const server = await serve(dir);
  const { port } = server.address();
  const context = await browser.newContext({
    locale: 'en-US',
    timezoneId: 'UTC',
    viewport: { width: 1280, height: 720 },
  });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text().slice(0, 160));
  });
  page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message.slice(0, 160)}`));
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${(e.sample || '').slice(0, 60)}`),
    );
    window.__styleElements = [];
    new MutationObserver((ms) => {
      for (const m of ms)
        for (const n of m.addedNodes)
          if (n.nodeName === 'STYLE')
            window.__styleElements.push((n.textContent || '').replace(/\s+/g, ' ').slice(0, 70));
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`http://127.0.0.1:${port}/?app`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  const out = { kit, closed: await axe(page) };
  for (const [name, fn] of Object.entries({
    dateField,
    dialog,
    drawer,
    tooltip,
    toast,
    menu,
    combobox,
  })) {
    try {
      out[name] = await fn(page, kit);
    } catch (e) {
      out[name] = { error: e.message.split('\n')[0] };
    }
    await page.keyboard.press('Escape').catch(() => {});
    await page.locator('body').evaluate((b) => b.ownerDocument.activeElement?.blur());
    await sleep(300);
  }
  mkdirSync(join(root, 'dist', 'results'), { recursive: true });
  await page.screenshot({ path: join(root, 'dist', 'results', `${kit}.png`) });
  out.csp = await page.evaluate(() => ({
    violations: [...new Set(window.__csp)],
    styleElementsInserted: window.__styleElements.length,
    styleElementStarts: [...new Set(window.__styleElements)],
    styleAttributes: document.querySelectorAll('[style]').length,
  }));
  out.console = [...new Set(consoleErrors)];
  await context.close();
  server.close();
  return out;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const results = {};
for (const kit of KITS) {
  results[kit] = await run(kit, browser);
  console.log(`checked ${kit}`);
}
await browser.close();
const file = join(root, 'dist', 'results', 'checks.json');
let previous = {};
try {
  previous = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  // first run
}
writeFileSync(file, JSON.stringify({ ...previous, ...results }, null, 2) + '\n');

// One line per kit and check: serious + critical axe nodes with that state open, and the findings.
const axeCount = (c) => (c?.axe ? c.axe.seriousOrCritical : '-');
for (const [kit, r] of Object.entries(results)) {
  console.log(
    `\n${kit}: axe closed ${r.closed.seriousOrCritical}; CSP ${r.csp.violations.length ? `blocked ${r.csp.styleElementsInserted} <style> (${r.csp.styleElementStarts.join(' | ')})` : 'clean'}`,
  );
  for (const name of ['dateField', 'dialog', 'drawer', 'tooltip', 'toast', 'menu', 'combobox']) {
    const { axe: scan, ...rest } = r[name] ?? {};
    console.log(
      `  ${name.padEnd(9)} axe ${String(axeCount({ axe: scan })).padStart(2)} ${JSON.stringify(rest)}`,
    );
    if (scan?.rules.length) console.log(`  ${''.padEnd(9)} ${scan.rules.join(', ')}`);
  }
}
