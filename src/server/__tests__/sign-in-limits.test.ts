import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILED_SIGN_IN_WINDOW_MS } from '../session/sign-in-limits.ts';
import { CSRF, buildTestBff, fileDatabase } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';

const database = fileDatabase();

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());

const attempt = (
  app: Awaited<ReturnType<typeof buildTestBff>>['app'],
  clientSecret: string,
  remoteAddress = '127.0.0.1',
) =>
  app.inject({
    method: 'POST',
    url: '/api/session',
    headers: CSRF,
    remoteAddress,
    payload: { region: 'eu', clientId: 'client', clientSecret },
  });

describe('sign-in rate limits', () => {
  it('limits attempts per IP address with 429 and Retry-After', async () => {
    const { app } = await buildTestBff(fake, {
      database: database.handle,
      testing: { signInLimits: { perIpPerMinute: 3 } },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1)
      statuses.push((await attempt(app, 'secret', '10.0.0.1')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await attempt(app, 'secret', '10.0.0.1');
    expect(refused.json()).toMatchObject({ status: 429, code: 'too_many_sign_ins' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await attempt(app, 'secret', '10.0.0.2')).statusCode).toBe(200);
    await app.close();
  });

  it('limits failed attempts per client ID from any address, until the window passes', async () => {
    const bff = await buildTestBff(fake, {
      database: database.handle,
      testing: { signInLimits: { failedPerClient: 3 } },
    });
    const before = fake.tokenRequests;
    for (let i = 0; i < 3; i += 1)
      expect((await attempt(bff.app, 'wrong', `10.0.1.${i}`)).statusCode).toBe(401);
    const locked = await attempt(bff.app, 'secret', '10.0.2.1');
    expect(locked.statusCode).toBe(429);
    expect(locked.json().code).toBe('too_many_sign_ins');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // The refused attempt never reached the token endpoint; each failed one tried form fields,
    // then HTTP Basic (token-endpoint.ts).
    expect(fake.tokenRequests - before).toBe(6);
    bff.clock.nowMs += FAILED_SIGN_IN_WINDOW_MS;
    expect((await attempt(bff.app, 'secret', '10.0.2.1')).statusCode).toBe(200);
    await bff.app.close();
  });
});
