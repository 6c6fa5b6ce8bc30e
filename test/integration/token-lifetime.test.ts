/**
 * Token renewal of the BFF against the sandbox's token faults, on PGlite and (with
 * TEST_DATABASE_URL) PostgreSQL: a token endpoint that is down while the cached token is still
 * valid, and token answers without `expires_in` or with it as a string (docs/architecture.md,
 * Upstream contract: Regions and tokens). The BFF runs on a clock the test moves; the sandbox's
 * clock is moved through its admin API.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProblemSchema } from '#domain/errors.ts';
import { DATABASE_KINDS } from '../support/databases.ts';
import type { BrowserClient } from '../support/http-client.ts';
import { DEMO_EU, startStack, type Stack } from '../support/stack.ts';

const HOUR_MS = 60 * 60 * 1000;

describe.each(DATABASE_KINDS)('token renewal against the sandbox on %s', (kind) => {
  let stack: Stack;
  let browser: BrowserClient;
  const clock = { nowMs: Date.now() };

  // Starting a stack takes a while on a loaded machine.
  beforeAll(async () => {
    stack = await startStack({ database: kind, bff: { testing: { now: () => clock.nowMs } } });
  }, 90_000);
  afterAll(() => stack.close());
  beforeEach(async () => {
    await stack.admin.reset();
    clock.nowMs = Date.now();
    browser = stack.browser();
  });

  const tokenRequests = async () => (await stack.admin.stats()).tokenRequests as number;

  it('serves calls with the cached token while the token endpoint is down, until it expires', async () => {
    await stack.admin.setFaults({ tokenTtlS: 30 });
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    await stack.admin.setFaults({ tokenTtlS: 30, tokenErrorStatus: 503 });
    // 25 s on the BFF's clock: inside the renewal margin; the sandbox still accepts the token.
    clock.nowMs += 25_000;
    expect((await browser.get('/api/sites')).status).toBe(200);
    expect((await browser.get('/api/sites')).status).toBe(200);

    clock.nowMs += 5_000;
    await stack.admin.advanceClock(30_000);
    const expired = await browser.get('/api/sites');
    expect(expired.status).toBe(503);
    expect(ProblemSchema.parse(expired.json()).code).toBe('token_endpoint_error');

    await stack.admin.setFaults({ tokenTtlS: 30 });
    expect((await browser.get('/api/sites')).status).toBe(200);
  });

  it('uses a token without expires_in until the sandbox refuses it, then renews it once', async () => {
    await stack.admin.setFaults({ tokenExpiresIn: 'absent' });
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    const afterSignIn = await tokenRequests();
    for (let i = 0; i < 4; i += 1) {
      clock.nowMs += 0.4 * HOUR_MS;
      expect((await browser.get('/api/sites')).status).toBe(200);
    }
    expect(await tokenRequests()).toBe(afterSignIn);
    // Past the sandbox's own lifetime (24 h): 401, one renewal, the call tried once more.
    await stack.admin.advanceClock(25 * HOUR_MS);
    expect((await browser.get('/api/sites')).status).toBe(200);
    expect(await tokenRequests()).toBe(afterSignIn + 1);
  });

  it('reads expires_in sent as a string as seconds', async () => {
    await stack.admin.setFaults({ tokenTtlS: 60, tokenExpiresIn: 'string' });
    expect((await browser.signIn(DEMO_EU)).status).toBe(200);
    const afterSignIn = await tokenRequests();
    clock.nowMs += 60_000;
    await stack.admin.advanceClock(60_000);
    expect((await browser.get('/api/sites')).status).toBe(200);
    expect(await tokenRequests()).toBe(afterSignIn + 1);
  });
});
