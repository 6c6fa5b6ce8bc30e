import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import {
  TEST_IDP_ACCOUNTS,
  TEST_IDP_CLIENT,
  startTestIdp,
  type TestIdp,
} from '#test/support/test-idp.ts';
import { SessionInfoSchema } from '#domain/session.ts';
import { CSRF, ORIGIN, buildTestBff, signInAnswer, type TestBff } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';
import { finishAtBff, logoutAtIdp, oidcEnvFor, signInAtIdp } from './support/idp-sign-in.ts';

let idp: TestIdp;
let fake: FakeUpstream;
let testDb: TestDatabase;
let bff: TestBff;
/** What the relay in front of the IdP does to the next token answer's ID token. */
let tamper: ((idToken: string) => string) | undefined;

beforeAll(async () => {
  idp = await startTestIdp({ port: 0, redirectOrigins: [ORIGIN] });
  fake = await startFakeUpstream();
  testDb = await createTestDatabase('pglite');
  bff = await buildTestBff(fake, {
    database: await testDb.open(),
    dataDir: testDb.dataDir,
    oidc: oidcEnvFor(idp.issuer),
    testing: {
      // A relay in front of the IdP: passes everything on, and alters an ID token when asked.
      oidcFetch: async (url, init) => {
        const response = await fetch(url, init as RequestInit);
        if (!tamper || !url.endsWith('/token')) return response;
        const body = (await response.json()) as { id_token: string };
        const altered = { ...body, id_token: tamper(body.id_token) };
        tamper = undefined;
        return new Response(JSON.stringify(altered), {
          status: response.status,
          headers: { 'content-type': 'application/json' },
        });
      },
    },
  });
  // ID tokens are judged on the BFF's clock: make it the wall clock.
  bff.clock.nowMs = Date.now();
});
afterAll(async () => {
  await bff.app.close();
  await testDb.drop();
  await fake.close();
  await idp.close();
});

/** Where a refused sign-in sends the browser: the sign-in page, saying why. */
const refusedWith = (refusal: string) => `/sign-in?refused=${refusal}`;

async function sessionOf(cookie: string) {
  const response = await bff.app.inject({
    method: 'GET',
    url: '/api/session',
    headers: { cookie },
  });
  return response;
}

describe('company sign-in through OpenID Connect', () => {
  it('tells the sign-in page to offer the company account', async () => {
    const response = await bff.app.inject({ method: 'GET', url: '/api/session/mode' });
    expect(response.json()).toEqual({ mode: 'oidc' });
  });

  it('starts with PKCE S256, state, nonce, the three scopes and the registered redirect URI', async () => {
    const response = await bff.app.inject({ method: 'GET', url: '/api/session/oidc?region=au' });
    expect(response.statusCode).toBe(303);
    const url = new URL(String(response.headers.location));
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('client_id')).toBe(TEST_IDP_CLIENT.clientId);
    expect(url.searchParams.get('scope')).toBe('openid profile email');
    expect(url.searchParams.get('redirect_uri')).toBe(`${ORIGIN}/api/session/oidc/callback`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    const attempt = response.cookies.find((c) => c.name === 'powerdeck_oidc');
    expect(attempt).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 600 });
    // Sealed: neither the state nor the verifier can be read from it.
    expect(attempt?.value).not.toContain(url.searchParams.get('state'));
  });

  it('signs a dispatcher in and out, the IdP session included, and comes back with its state', async () => {
    const back = await signInAtIdp(bff.app, 'dispatcher', { region: 'au' });
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/');
    const session = response.cookies.find((c) => c.name === 'powerdeck_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(response.cookies.find((c) => c.name === 'powerdeck_oidc')?.value).toBe('');

    const info = SessionInfoSchema.parse((await sessionOf(cookie)).json());
    expect(info).toEqual({
      region: 'au',
      operator: {
        issuer: idp.issuer,
        subject: TEST_IDP_ACCOUNTS.dispatcher.sub,
        name: 'Dan Dispatcher',
        email: 'dan.dispatcher@example.com',
      },
      operatorName: 'Dan Dispatcher',
      role: 'dispatcher',
      // The test BFF's budget (support/bff.ts), not the vendor's.
      deviceCallBudget: { limit: 1000, windowSeconds: 60 },
      csrfHeader: 'X-CSRF',
    });

    const out = await bff.app.inject({
      method: 'DELETE',
      url: '/api/session',
      headers: { cookie, ...CSRF },
    });
    expect(out.statusCode).toBe(200);
    const answer = out.json<{ logoutUrl: string; state: string }>();
    const logout = new URL(answer.logoutUrl);
    expect(logout.origin).toBe(idp.issuer);
    expect(logout.searchParams.get('post_logout_redirect_uri')).toBe(`${ORIGIN}/sign-in`);
    expect(logout.searchParams.get('id_token_hint')).toBeTruthy();
    expect(logout.searchParams.get('client_id')).toBe(TEST_IDP_CLIENT.clientId);
    expect(answer.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(logout.searchParams.get('state')).toBe(answer.state);
    expect((await sessionOf(cookie)).statusCode).toBe(401);
    // The IdP ends its session and sends the browser back to the sign-in page with the state.
    const { returnedTo } = await logoutAtIdp(answer.logoutUrl, back.idpCookies);
    expect(returnedTo?.toString()).toBe(`${ORIGIN}/sign-in?state=${answer.state}`);
    // A second sign-out asks for a new state: one return, one state.
    const again = await bff.app.inject({ method: 'DELETE', url: '/api/session', headers: CSRF });
    expect(again.json<{ state: string }>().state).not.toBe(answer.state);
  });

  it('refuses a forged state, and a return without the attempt cookie', async () => {
    const forged = await signInAtIdp(bff.app, 'viewer', {
      alter: (url) => url.searchParams.set('state', 'forged-state-value'),
    });
    const { response, cookie } = await finishAtBff(bff.app, forged);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(refusedWith('response_mismatch'));
    expect(cookie).toBe('');

    const good = await signInAtIdp(bff.app, 'viewer');
    const stray = await finishAtBff(bff.app, { ...good, attemptCookie: '' });
    expect(stray.response.headers.location).toBe(refusedWith('response_mismatch'));
    expect(stray.cookie).toBe('');
  });

  it('refuses an ID token whose nonce is not the attempt’s', async () => {
    const back = await signInAtIdp(bff.app, 'viewer', {
      alter: (url) => url.searchParams.set('nonce', 'another-nonce-value'),
    });
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.headers.location).toBe(refusedWith('response_mismatch'));
    expect(cookie).toBe('');
  });

  it('refuses a code issued for another PKCE challenge (the IdP answers invalid_grant)', async () => {
    const back = await signInAtIdp(bff.app, 'viewer', {
      alter: (url) =>
        url.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'),
    });
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.headers.location).toBe(refusedWith('invalid_grant'));
    expect(cookie).toBe('');
  });

  it('refuses a code used twice as invalid_grant, and a cancelled sign-in as access_denied', async () => {
    const back = await signInAtIdp(bff.app, 'viewer');
    expect((await finishAtBff(bff.app, back)).cookie).not.toBe('');
    const replayed = await finishAtBff(bff.app, back);
    expect(replayed.response.headers.location).toBe(refusedWith('invalid_grant'));
    expect(replayed.cookie).toBe('');

    const started = await signInAtIdp(bff.app, 'viewer');
    const state = new URLSearchParams(started.callbackPath.split('?')[1]).get('state') ?? '';
    const cancelled = await finishAtBff(bff.app, {
      ...started,
      callbackPath: `/api/session/oidc/callback?error=access_denied&state=${state}`,
    });
    expect(cancelled.response.headers.location).toBe(refusedWith('access_denied'));
    expect(cancelled.cookie).toBe('');
  });

  it('refuses an ID token altered on the way', async () => {
    const back = await signInAtIdp(bff.app, 'admin');
    tamper = (idToken) => {
      const [header, payload, signature] = idToken.split('.');
      const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
      const forged = { ...claims, roles: ['admin'], sub: TEST_IDP_ACCOUNTS.viewer.sub };
      return `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`;
    };
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.headers.location).toBe(refusedWith('id_token_invalid'));
    expect(cookie).toBe('');
  });

  it('refuses an expired ID token', async () => {
    const nowMs = bff.clock.nowMs;
    // The BFF's clock two hours ahead of the IdP's: the hour-long ID token has expired.
    bff.clock.nowMs = Date.now() + 2 * 60 * 60 * 1000;
    try {
      const back = await signInAtIdp(bff.app, 'admin');
      const { response, cookie } = await finishAtBff(bff.app, back);
      expect(response.headers.location).toBe(refusedWith('id_token_invalid'));
      expect(cookie).toBe('');
    } finally {
      bff.clock.nowMs = nowMs;
    }
  });

  it('refuses someone without a powerdeck role, and signs them out of the IdP from the refusal', async () => {
    const back = await signInAtIdp(bff.app, 'nobody');
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(refusedWith('no_role'));
    expect(cookie).toBe('');
    // The refusal keeps the ID token, sealed, as the hint of the IdP's logout.
    const hint = response.cookies.find((c) => c.name === 'powerdeck_signout');
    expect(hint).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/', maxAge: 600 });
    expect(hint?.value).not.toContain('eyJ');

    // Signing in again would land on the same refusal: the IdP's session signs the person in.
    const again = await signInAtIdp(bff.app, 'nobody', { idpCookies: back.idpCookies });
    expect(again.askedForLogin).toBe(false);

    const out = await bff.app.inject({
      method: 'DELETE',
      url: '/api/session',
      headers: { cookie: `powerdeck_signout=${hint?.value}`, ...CSRF },
    });
    expect(out.statusCode).toBe(200);
    const answer = out.json<{ logoutUrl: string; state: string }>();
    const logout = new URL(answer.logoutUrl);
    const hinted = logout.searchParams.get('id_token_hint') ?? '';
    const claims = JSON.parse(Buffer.from(hinted.split('.')[1] ?? '', 'base64url').toString());
    expect(claims).toMatchObject({ sub: 'nobody', aud: TEST_IDP_CLIENT.clientId });
    expect(out.cookies.find((c) => c.name === 'powerdeck_signout')?.value).toBe('');
    const { returnedTo } = await logoutAtIdp(answer.logoutUrl, back.idpCookies);
    expect(returnedTo?.toString()).toBe(`${ORIGIN}/sign-in?state=${answer.state}`);
    // The IdP's session has ended: the next sign-in asks for the account, so another one can go.
    const next = await signInAtIdp(bff.app, 'viewer', { idpCookies: back.idpCookies });
    expect(next.askedForLogin).toBe(true);
    expect((await finishAtBff(bff.app, next)).cookie).not.toBe('');
  });

  it('signs out of the IdP without a hint when none is known (the refusal page after ten minutes)', async () => {
    const out = await bff.app.inject({ method: 'DELETE', url: '/api/session', headers: CSRF });
    expect(out.statusCode).toBe(200);
    const logout = new URL(out.json<{ logoutUrl: string }>().logoutUrl);
    expect(logout.searchParams.get('id_token_hint')).toBeNull();
    expect(logout.searchParams.get('client_id')).toBe(TEST_IDP_CLIENT.clientId);
    const { returnedTo } = await logoutAtIdp(logout.toString());
    expect(returnedTo?.pathname).toBe('/sign-in');
  });

  it('turns the credentials form off', async () => {
    const response = await signInAnswer(bff.app);
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('credentials_sign_in_off');
    expect(fake.tokenRequests).toBe(0);
  });
});
