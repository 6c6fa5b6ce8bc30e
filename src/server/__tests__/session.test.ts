import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProblemSchema } from '#domain/errors.ts';
import { SessionInfoSchema } from '#domain/session.ts';
import { SESSION_ABSOLUTE_TIMEOUT_MS, SESSION_IDLE_TIMEOUT_MS } from '../session/session-store.ts';
import {
  CSRF,
  buildTestBff,
  cookieHeader,
  fileDatabase,
  signIn,
  signInAnswer,
  type TestBff,
} from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';

const database = fileDatabase();

let fake: FakeUpstream;
let bff: TestBff;

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', () => ({ sites: [] }));
});
afterAll(() => fake.close());
afterEach(() => bff.app.close());

const signInWith = (clientId: string, clientSecret: string, headers: Record<string, string> = {}) =>
  signInAnswer(bff.app, { clientId, clientSecret }, headers);

describe('POST /api/session', () => {
  it('signs in, answers who is signed in and sets an HttpOnly SameSite=Strict cookie', async () => {
    bff = await buildTestBff(fake, { database: database.handle });
    const response = await signInWith('client', 'secret');
    expect(response.statusCode).toBe(200);
    expect(SessionInfoSchema.parse(response.json())).toEqual({
      region: 'eu',
      clientId: 'client',
      // The test BFF's budget (support/bff.ts), not the vendor's.
      deviceCallBudget: { limit: 1000, windowSeconds: 60 },
      csrfHeader: 'X-CSRF',
    });
    expect(response.body).not.toContain('secret');
    expect(response.body).not.toContain('tok-');
    const [cookie] = response.cookies;
    expect(cookie).toMatchObject({
      name: 'powerdeck_session',
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
    });
    expect(cookie?.secure).toBeFalsy();
    expect(cookie?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie?.maxAge).toBeUndefined();
  });

  it('answers an unknown client ID and a wrong secret the same, without a cookie', async () => {
    bff = await buildTestBff(fake, { database: database.handle });
    const unknown = await signInWith('nobody', 'secret');
    const wrong = await signInWith('client', 'wrong');
    for (const response of [unknown, wrong]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(ProblemSchema.parse(response.json()).code).toBe('invalid_credentials');
    }
    expect(unknown.body).toBe(wrong.body);
    expect(wrong.json().detail).toContain('client ID or secret');
  });

  it('refuses a malformed body with 400 naming the field, without echoing the secret', async () => {
    bff = await buildTestBff(fake, { database: database.handle });
    const response = await signInAnswer(bff.app, {
      region: 'mars',
      clientSecret: 'hunter2-secret',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_request' });
    expect(response.json().detail).toContain('region');
    expect(response.body).not.toContain('hunter2');
  });

  it('uses a __Host- prefixed Secure cookie when the public origin is https', async () => {
    const origin = 'https://powerdeck.example.com';
    bff = await buildTestBff(fake, { database: database.handle, publicOrigin: origin });
    const response = await signInWith('client', 'secret', { 'x-csrf': '1', origin });
    expect(response.cookies[0]).toMatchObject({
      name: '__Host-powerdeck_session',
      secure: true,
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
    });
    expect(response.headers['strict-transport-security']).toBeDefined();
  });

  it('rotates the session ID at sign-in: the previous session is gone', async () => {
    bff = await buildTestBff(fake, { database: database.handle });
    const first = await signIn(bff.app);
    const second = await signInAnswer(bff.app, {}, { cookie: first });
    expect(cookieHeader(second)).not.toBe(first);
    const old = await bff.app.inject({
      method: 'GET',
      url: '/api/session',
      headers: { cookie: first },
    });
    expect(old.statusCode).toBe(401);
  });
});

describe('GET and DELETE /api/session', () => {
  it("says the signed-in region's budget of calls per device, as configured", async () => {
    bff = await buildTestBff(fake, {
      database: database.handle,
      deviceCallsPerMinute: { eu: 3, au: 2 },
    });
    const signedIn = await signInWith('client', 'secret');
    expect(SessionInfoSchema.parse(signedIn.json()).deviceCallBudget).toEqual({
      limit: 3,
      windowSeconds: 60,
    });
    const cookie = cookieHeader(signedIn);
    const answer = await bff.app.inject({
      method: 'GET',
      url: '/api/session',
      headers: { cookie },
    });
    expect(SessionInfoSchema.parse(answer.json()).deviceCallBudget).toEqual({
      limit: 3,
      windowSeconds: 60,
    });
  });

  it('answers 401 not_signed_in without a session', async () => {
    bff = await buildTestBff(fake, { database: database.handle });
    const response = await bff.app.inject({ method: 'GET', url: '/api/session' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ status: 401, code: 'not_signed_in' });
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('sign-out destroys the session and clears the cookie', async () => {
    bff = await buildTestBff(fake, { database: database.handle });
    const cookie = await signIn(bff.app);
    const who = await bff.app.inject({ method: 'GET', url: '/api/session', headers: { cookie } });
    expect(who.statusCode).toBe(200);
    const out = await bff.app.inject({
      method: 'DELETE',
      url: '/api/session',
      headers: { ...CSRF, cookie },
    });
    expect(out.statusCode).toBe(204);
    expect(out.cookies[0]).toMatchObject({ name: 'powerdeck_session', value: '' });
    const after = await bff.app.inject({ method: 'GET', url: '/api/sites', headers: { cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('not_signed_in');
  });

  it('ends a session after 30 minutes idle and after 12 hours whatever its use', async () => {
    bff = await buildTestBff(fake, { database: database.handle });
    const idle = await signIn(bff.app);
    bff.clock.nowMs += SESSION_IDLE_TIMEOUT_MS - 1000;
    const stillThere = await bff.app.inject({
      method: 'GET',
      url: '/api/session',
      headers: { cookie: idle },
    });
    expect(stillThere.statusCode).toBe(200);
    bff.clock.nowMs += SESSION_IDLE_TIMEOUT_MS;
    const gone = await bff.app.inject({
      method: 'GET',
      url: '/api/session',
      headers: { cookie: idle },
    });
    expect(gone.statusCode).toBe(401);

    const busy = await signIn(bff.app);
    const stepMs = SESSION_IDLE_TIMEOUT_MS / 2;
    let status = 200;
    for (
      let elapsed = 0;
      elapsed < SESSION_ABSOLUTE_TIMEOUT_MS && status === 200;
      elapsed += stepMs
    ) {
      bff.clock.nowMs += stepMs;
      status = (
        await bff.app.inject({ method: 'GET', url: '/api/session', headers: { cookie: busy } })
      ).statusCode;
    }
    expect(status).toBe(401);
  });
});
