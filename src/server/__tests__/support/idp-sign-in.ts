import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { TEST_IDP_CLIENT, type TestAccountName } from '#test/support/test-idp.ts';
import type { OidcEnv } from '../../env.ts';
import { cookieHeader } from './bff.ts';

/** What a browser brings back from the IdP to the BFF's callback. */
export interface IdpReturn {
  /** Path and query of the callback, as the IdP redirected to it. */
  callbackPath: string;
  /** The attempt cookie the BFF set when the sign-in started. */
  attemptCookie: string;
  /** The browser's cookies at the IdP (its session), for a logout there later. */
  idpCookies: Map<string, string>;
  /** Whether the IdP asked for the account (false: its session signed the person in). */
  askedForLogin: boolean;
}

/**
 * Plays the browser through a company sign-in up to the IdP's redirect back: starts it at the
 * BFF (`inject`), follows the IdP's pages over HTTP with a cookie jar, and types `account` on
 * the IdP's sign-in page. `alter` may change the authorization URL first (to forge state, nonce
 * or the PKCE challenge); `idpCookies` are the browser's IdP cookies of an earlier sign-in.
 */
export async function signInAtIdp(
  app: FastifyInstance,
  account: TestAccountName,
  options: {
    region?: 'eu' | 'au';
    alter?: (url: URL) => void;
    idpCookies?: Map<string, string>;
  } = {},
): Promise<IdpReturn> {
  const start = await app.inject({
    method: 'GET',
    url: `/api/session/oidc?region=${options.region ?? 'eu'}`,
  });
  if (start.statusCode !== 303) throw new Error(`start failed: ${start.statusCode} ${start.body}`);
  const authorizationUrl = new URL(String(start.headers.location));
  options.alter?.(authorizationUrl);
  const jar = options.idpCookies ?? new Map<string, string>();
  let askedForLogin = false;
  let url = authorizationUrl.toString();
  let response = await idpFetch(url, jar);
  for (let hop = 0; hop < 10; hop += 1) {
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, url);
      if (next.pathname === '/api/session/oidc/callback')
        return {
          callbackPath: `${next.pathname}${next.search}`,
          attemptCookie: cookieHeader(start),
          idpCookies: jar,
          askedForLogin,
        };
      url = next.toString();
      response = await idpFetch(url, jar);
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (response.status !== 200 || !action)
      throw new Error(`unexpected IdP page ${response.status}: ${html.slice(0, 300)}`);
    const login = html.includes('name="login"');
    askedForLogin ||= login;
    const form: Record<string, string> = login
      ? { prompt: 'login', login: account, password: 'any' }
      : { prompt: 'consent' };
    url = new URL(action.replace(/&amp;/g, '&'), url).toString();
    response = await idpFetch(url, jar, new URLSearchParams(form));
  }
  throw new Error('the IdP did not redirect back within 10 hops');
}

/** Follows one IdP page with the jar's cookies, without following redirects. */
async function idpFetch(
  url: string,
  jar: Map<string, string>,
  form?: URLSearchParams,
): Promise<Response> {
  const response = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
      ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(form ? { body: form.toString() } : {}),
  });
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const at = pair.indexOf('=');
    jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return response;
}

/**
 * Plays the browser through the IdP's logout (OpenID Connect RP-Initiated Logout 1.0) from
 * `logoutUrl`, with the IdP's cookies of the sign-in: confirms "sign me out" on the IdP's page
 * and follows its redirects. `returnedTo` is where the IdP sent the browser out of itself (the
 * post-logout redirect URI with its `state`), or undefined when the logout ended on a page of
 * the IdP's own (`page`).
 */
export async function logoutAtIdp(
  logoutUrl: string,
  jar: Map<string, string> = new Map(),
): Promise<{ returnedTo: URL | undefined; page: string }> {
  const idp = new URL(logoutUrl).origin;
  let url = logoutUrl;
  let response = await idpFetch(url, jar);
  for (let hop = 0; hop < 10; hop += 1) {
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin !== idp) return { returnedTo: next, page: '' };
      url = next.toString();
      response = await idpFetch(url, jar);
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (response.status !== 200 || !action) return { returnedTo: undefined, page: html };
    const form = new URLSearchParams({ logout: 'yes' });
    for (const [, name = '', value = ''] of html.matchAll(
      /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
    ))
      form.set(name, value);
    url = new URL(action.replace(/&amp;/g, '&'), url).toString();
    response = await idpFetch(url, jar, form);
  }
  throw new Error('the IdP did not finish its logout within 10 hops');
}

/** Completes a sign-in at the BFF's callback; the `cookie` header of the session, if any. */
export async function finishAtBff(
  app: FastifyInstance,
  back: IdpReturn,
): Promise<{ response: LightMyRequestResponse; cookie: string }> {
  const response = await app.inject({
    method: 'GET',
    url: back.callbackPath,
    headers: { cookie: back.attemptCookie, 'sec-fetch-site': 'cross-site' },
  });
  const cookie = response.cookies
    .filter((c) => c.name === 'powerdeck_session' && c.value !== '')
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
  return { response, cookie };
}

/** The BFF's company sign-in settings for the test IdP at `issuer`. */
export function oidcEnvFor(issuer: string): OidcEnv {
  return {
    issuer,
    clientId: TEST_IDP_CLIENT.clientId,
    clientSecret: TEST_IDP_CLIENT.clientSecret,
    rolesClaim: 'roles',
    roleNames: { viewer: ['viewer'], dispatcher: ['dispatcher'], admin: ['admin'] },
  };
}

/** Signs `account` in through the IdP; the session's `cookie` header. */
export async function signInThroughIdp(
  app: FastifyInstance,
  account: TestAccountName,
  region: 'eu' | 'au' = 'eu',
): Promise<string> {
  const { response, cookie } = await finishAtBff(app, await signInAtIdp(app, account, { region }));
  if (response.statusCode !== 303 || cookie === '')
    throw new Error(`sign-in of ${account} failed: ${response.statusCode} ${response.body}`);
  return cookie;
}
