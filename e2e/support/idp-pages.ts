import { expect, test, type Locator, type Page } from '@playwright/test';
import { GLEWLWYD_PASSWORD } from '#test/support/glewlwyd.ts';

/** The people of the company sign-in tests, by what powerdeck makes of them. */
export type IdpPerson = 'admin' | 'dispatcher' | 'viewer' | 'nobody';

/**
 * The steps a person takes on the identity provider's own pages, which differ from provider to
 * provider while powerdeck's pages do not: the company sign-in specs run against oidc-provider
 * (project `company-sign-in`, scripts/idp-dev.ts) and Glewlwyd (`company-sign-in-glewlwyd`,
 * scripts/glewlwyd-dev.ts).
 */
export interface IdpPages {
  /** Signs `person` in on the IdP's sign-in page, granting powerdeck access where it asks. */
  signIn(page: Page, person: IdpPerson): Promise<void>;
  /** Confirms the sign-out on the IdP's end-session page; Glewlwyd's is then waited out. */
  confirmSignOut(page: Page): Promise<void>;
  /** The login field of the IdP's sign-in page, visible when it asks for an account. */
  loginField(page: Page): Locator;
  /** Whether the spec takes the pictures of docs/screenshots/ (against one IdP only). */
  takesScreenshots: boolean;
}

/** oidc-provider's dev pages (test/support/test-idp.ts): any password, a confirm on logout. */
const OIDC_PROVIDER: IdpPages = {
  async signIn(page, person) {
    await page.getByPlaceholder('Enter any login').fill(person);
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
  },
  async confirmSignOut(page) {
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  },
  loginField: (page) => page.getByPlaceholder('Enter any login'),
  takesScreenshots: true,
};

/** Glewlwyd's logins for the people (test/support/glewlwyd.ts: its own `admin` is taken). */
const GLEWLWYD_LOGINS: Record<IdpPerson, string> = {
  admin: 'ada',
  dispatcher: 'dispatcher',
  viewer: 'viewer',
  nobody: 'nobody',
};

/**
 * Glewlwyd's webapp: login and password, then, for a person who has not yet granted powerdeck
 * access, its grant page ("Grant access", then "Continue"); a person who has is sent on at once.
 * Its end-session page asks to confirm with "Logout". Its buttons carry an icon, hence the names
 * matched as substrings.
 */
const GLEWLWYD: IdpPages = {
  async signIn(page, person) {
    await page.getByPlaceholder('Your username').fill(GLEWLWYD_LOGINS[person]);
    await page.getByPlaceholder('Your password').fill(GLEWLWYD_PASSWORD);
    await page.getByRole('button', { name: 'OK' }).click();
    const idpOrigin = new URL(page.url()).origin;
    const grant = page.getByRole('button', { name: 'Grant access' });
    const proceed = page.getByRole('button', { name: 'Continue' });
    const atIdp = () => new URL(page.url()).origin === idpOrigin;
    // Either its grant page shows, or Glewlwyd has sent the browser back to powerdeck.
    await expect
      .poll(async () => !atIdp() || (await proceed.isVisible()), { timeout: 10_000 })
      .toBe(true);
    if (!atIdp()) return;
    if (await grant.isVisible()) await grant.click();
    await proceed.click();
  },
  async confirmSignOut(page) {
    await page.getByRole('button', { name: 'Logout' }).click();
    // Its end-session page first loads the return address in a frame of its own, then sends the
    // window there: a clean-clone CI run, under the load of three browser shards and the bench,
    // was still on it after 10 s with powerdeck's sign-in page drawn in that frame.
    await page.waitForURL((url) => !url.pathname.endsWith('/login.html'), { timeout: 30_000 });
  },
  loginField: (page) => page.getByPlaceholder('Your username'),
  takesScreenshots: false,
};

/** The IdP pages of the project the running test belongs to. */
export function idpPages(): IdpPages {
  return test.info().project.name === 'company-sign-in-glewlwyd' ? GLEWLWYD : OIDC_PROVIDER;
}
