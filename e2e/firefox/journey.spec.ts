import { coreJourney } from '../support/every-page.ts';
import { expect, test } from '../support/firefox.ts';

/*
 * The core journey of e2e/journey.spec.ts in Firefox: sign in, bind, a device, a command watched
 * to completion as the sandbox clock moves, another cancelled, sign out, with no console error.
 */

test('sign in, bind a site, schedule a command and watch it complete, cancel another, sign out', async ({
  ui,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const { replayStatus } = await coreJourney(ui, baseURL ?? '');
  // Sign-out destroyed the server-side session: the old cookie no longer works.
  expect(replayStatus).toBe(401);
  expect(ui.problems()).toEqual([]);
});
