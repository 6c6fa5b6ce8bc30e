import { DEMO_EU } from './fixtures.ts';
import { sandboxAdmin } from './sandbox-admin.ts';
import type { UiDriver } from './ui-driver.ts';

/**
 * A page expression: each `<style>` element with the number of rules it applied, `blocked` when
 * the CSP refused it; React Aria's `usePress` style is `react-aria-pressable-style: 1` when it
 * works.
 */
export const INLINE_STYLES = `[...document.querySelectorAll('style')].map((s) =>
  (s.id || 'style') + ': ' + (s.sheet ? s.sheet.cssRules.length : 'blocked'))`;

/** A command ID in a page's text (the sandbox's `cmd_...` IDs). */
const COMMAND_ID = /cmd_[A-Za-z0-9_-]+/;

/**
 * Waits until a status live region announces a submitted command other than `other`; returns its
 * ID.
 *
 * @throws Error when none is announced within 10 s.
 */
export async function submittedCommandId(ui: UiDriver, other?: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = (await ui.statusText())
      .split('\n')
      .filter((l) => l.includes('Command submitted'));
    const id = lines.map((line) => COMMAND_ID.exec(line)?.[0]).find((i) => i && i !== other);
    if (id) return id;
    if (Date.now() > deadline)
      throw new Error(`no "Command submitted" status: ${lines.join(' | ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Dismisses every toast shown (the Undo offers of submissions): on a short window they sit over
 * the last rows of a table, and a toast that has focus does not time out.
 */
export async function dismissToasts(ui: UiDriver): Promise<void> {
  // The region shows one toast at a time: each dismissal may bring the next one into view.
  for (let tries = 0; tries < 5 && (await ui.count('button', 'Dismiss')) > 0; tries++)
    await ui.click('button', 'Dismiss');
}

/** Signs in with the demo credentials (Europe) from the sign-in page and waits for the sites. */
export async function signInDemo(ui: UiDriver): Promise<void> {
  await ui.goto('/sign-in');
  await ui.heading('Sign in to powerdeck');
  await ui.select('Region', 'eu');
  await ui.fill('Client ID', DEMO_EU.clientId);
  await ui.fill('Client secret', DEMO_EU.clientSecret);
  await ui.click('button', 'Sign in');
  // The app opens on the overview; the tours go on from the sites.
  await ui.heading('Overview');
  await ui.goto('/sites');
  await ui.heading('Sites');
}

/**
 * What the bind form shows: its field's value, its button, and its refusal or confirmation, one
 * part each (a failed wait for a bound site says this rather than only what was not found).
 */
const BIND_FORM_TEXT = `[...document.querySelectorAll(
  '.bind-site-form input, .bind-site-form button, .bind-site-form [role=alert], .bind-site-form [role=status]'
)].map((e) => e.localName + ': ' + (e.localName === 'input' ? JSON.stringify(e.value) : e.textContent)).join('; ')`;

/**
 * Binds a site from the sites page, waits for its section and for the form to be ready for the
 * next site (its button says Bind again, as `bindSite` of fixtures.ts waits).
 *
 * @throws when the section does not show, with what the bind form says.
 */
export async function bindDemoSite(ui: UiDriver, siteId: string): Promise<void> {
  await ui.fill('Site ID', siteId);
  await ui.click('button', 'Bind');
  try {
    await ui.see('region', new RegExp(siteId));
  } catch (error) {
    const form = await ui.evaluate<string>(BIND_FORM_TEXT);
    throw new Error(`${siteId} is not shown after Bind. The bind form shows: ${form}`, {
      cause: error,
    });
  }
  await ui.see('button', 'Bind');
}

/**
 * Every page of the SPA on the demo fixture, each with what it shows once its data is in, opened
 * as an operator reaches it: sign-in (signed out), sites with two sites bound, a device with a
 * command, its date picker and its cancel dialog open, the device's history, the timeline, a new
 * batch sent and its page, the batch list, a new fleet job started and its page, the fleet job
 * list, the dispatch plan, the overview with all of these under way, audit, vendor connections, a page that does not exist, and sign-out.
 * `visited` is called once each page has settled (no request for half a second), with its name.
 */
export async function visitEveryPage(
  ui: UiDriver,
  visited: (page: string) => Promise<void>,
): Promise<void> {
  const shown = async (page: string, heading: string) => {
    await ui.heading(heading);
    await ui.settle();
    await visited(page);
  };

  await ui.goto('/sign-in');
  await shown('sign-in', 'Sign in to powerdeck');
  await signInDemo(ui);
  await bindDemoSite(ui, 'PLANT-EU-001');
  await bindDemoSite(ui, 'PLANT-EU-100');
  await shown('sites', 'Sites');

  await ui.click('link', 'BAT-EU-001-A');
  await ui.heading('Hall A battery');
  await ui.fill('Target battery power (W)', '-2000');
  await ui.click('button', 'Submit command');
  const commandId = await submittedCommandId(ui);
  await ui.rowContains(commandId, 'received');
  await dismissToasts(ui);
  await shown('device with a command', 'Hall A battery');
  // Overlays: React Aria's popover and modal code paths (its injected styles, focus scopes).
  await ui.click('button', 'Choose date Start');
  await ui.see('dialog', /Choose date/);
  await visited('device, date picker open');
  await ui.press('Escape');
  await ui.click('button', 'Cancel', { row: commandId });
  await ui.see('alertdialog', /^Cancel command/);
  await visited('device, cancel dialog open');
  await ui.press('Escape');

  await ui.goto('/sites/PLANT-EU-001/devices/BAT-EU-001-A/history');
  await shown('history', 'Command history of Hall A battery');

  await ui.goto('/timeline');
  await ui.see('grid', 'Command timeline');
  await shown('timeline', 'Timeline');

  await ui.goto('/batches/new');
  await shown('new batch', 'New batch');
  await ui.select('Site', 'PLANT-EU-001');
  await ui.click('button', /^Select all visible/);
  await ui.fill('Target battery power (W)', '1500');
  await ui.click('button', /^Submit batch to/);
  await shown('batch', 'Batch ');
  await ui.goto('/batches');
  await shown('batches', 'Batches');

  await ui.goto('/fleet-jobs/new');
  await shown('new fleet job', 'New fleet job');
  await ui.click('checkbox', /^PLANT-EU-001/);
  await ui.fill('Target battery power (W)', '1000');
  await ui.click('button', /^Start fleet job for/);
  // Nothing goes before the operator confirms the devices, window and pace.
  await ui.see('alertdialog', /^Start a fleet job for/);
  await visited('new fleet job, confirmation open');
  await ui.click('button', /^Start sending to/);
  await shown('fleet job', 'Fleet job ');
  await ui.goto('/fleet-jobs');
  await shown('fleet jobs', 'Fleet jobs');
  await ui.goto('/fleet-jobs/plan');
  await shown('dispatch plan', 'Dispatch plan');

  await ui.goto('/overview');
  await shown('overview', 'Overview');

  await ui.goto('/audit');
  await shown('audit', 'Audit');
  await ui.goto('/connections');
  await shown('connections', 'Vendor connections');
  await ui.goto('/no-such-page');
  await shown('not found', 'Page not found');

  await ui.goto('/sites');
  await ui.heading('Sites');
  await ui.click('button', /^Account:/);
  await ui.click('button', 'Sign out');
  await shown('signed out', 'Sign in to powerdeck');
}

/**
 * The core journey (the first of `e2e/journey.spec.ts`, for a browser driven through
 * {@link UiDriver}): sign in, bind a site, open a device, submit a command and watch it execute
 * and complete as the sandbox clock moves, submit another and cancel it, sign out; the old
 * session cookie is refused afterwards. Returns that cookie's answer status for the caller to
 * check.
 */
export async function coreJourney(ui: UiDriver, origin: string): Promise<{ replayStatus: number }> {
  await signInDemo(ui);
  const cookie = await ui.cookieHeader();

  await bindDemoSite(ui, 'PLANT-EU-001');
  await ui.click('link', 'BAT-EU-001-A');
  await ui.heading('Hall A battery');
  await ui.fill('Target battery power (W)', '-3000');
  await ui.fill('Charge cut-off SoC (%)', '90');
  await ui.click('button', 'Submit command');
  const first = await submittedCommandId(ui);
  await ui.rowContains(first, 'received');
  // The form's default window starts within the next 15 minutes and lasts one hour.
  await sandboxAdmin.advanceClock(16 * 60_000);
  await ui.rowContains(first, 'executing');
  await sandboxAdmin.advanceClock(60 * 60_000);
  await ui.rowContains(first, 'completed');

  await ui.fill('Target battery power (W)', '2000');
  await ui.fill('Charge cut-off SoC (%)', '');
  await ui.click('button', 'Submit command');
  const second = await submittedCommandId(ui, first);
  await ui.rowContains(second, 'Cancel');
  await dismissToasts(ui);
  await ui.click('button', 'Cancel', { row: second });
  await ui.click('button', 'Cancel command');
  await ui.rowContains(second, 'cancelled');
  await ui.rowContains(second, 'Cancelled by an operator');

  await ui.click('button', /^Account:/);
  await ui.click('button', 'Sign out');
  await ui.heading('Sign in to powerdeck');
  const replay = await fetch(new URL('/api/session', origin), { headers: { cookie } });
  await replay.body?.cancel();
  return { replayStatus: replay.status };
}
