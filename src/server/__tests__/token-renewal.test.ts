import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProblemSchema } from '#domain/errors.ts';
import { RENEWAL_RETRY_MIN_MS } from '../upstream/token-cache.ts';
import type { ServerOptions } from '../app.ts';
import {
  CSRF,
  buildTestBff,
  fileDatabase,
  signIn,
  signInAnswer,
  type TestBff,
} from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';

const database = fileDatabase();

let fake: FakeUpstream;
let bff: TestBff;
let cookie: string;
/** The BFF's log lines (pino JSON), parsed. */
let logLines: Record<string, unknown>[];

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', () => ({ total: 0, page: 1, size: 500, sites: [] }));
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.seen.length = 0;
  fake.tokenRequests = 0;
  fake.expiresInS = 3600;
  fake.expiresInAs = 'number';
  fake.tokenFault = undefined;
  fake.tokenClientAuth = 'form';
  fake.revoked.clear();
  logLines = [];
});
afterEach(() => bff.app.close());

async function start(overrides: Partial<ServerOptions> = {}): Promise<void> {
  bff = await buildTestBff(fake, {
    database: database.handle,
    logger: {
      level: 'info',
      stream: { write: (line: string) => void logLines.push(JSON.parse(line)) },
    },
    ...overrides,
  });
}

const sites = () => bff.app.inject({ method: 'GET', url: '/api/sites', headers: { cookie } });
/** Starts the BFF and signs in with a token the fake issues for 30 s. */
async function signInForThirtySeconds(): Promise<void> {
  fake.expiresInS = 30;
  await start();
  cookie = await signIn(bff.app);
}
/** The bearer token of the last API call the fake saw. */
const lastToken = () => fake.seen.at(-1)?.headers.authorization?.replace('Bearer ', '');
const logged = (pattern: RegExp) => logLines.filter((line) => pattern.test(String(line.msg ?? '')));

/** An operator reads `detail`: it says what to do, with no spec section, BFF or ISO time. */
function expectOperatorWords(detail: string | undefined): void {
  expect(detail ?? '').not.toMatch(/\bBFF\b|\bspec \d|\d{4}-\d\d-\d\dT|command list/);
}

describe('renewal at the edge of a token life (docs/upstream.md, Tokens)', () => {
  it('keeps using the cached token while it is valid when the token endpoint is down', async () => {
    await signInForThirtySeconds();
    await sites();
    const signedInToken = lastToken();
    fake.tokenRequests = 0;
    fake.tokenFault = { status: 503 };
    // Inside the renewal margin (a fifth of 30 s) but before the token expires.
    bff.clock.nowMs += 25_000;
    const response = await sites();
    expect(response.statusCode).toBe(200);
    expect(lastToken()).toBe(signedInToken);
    await vi.waitFor(() => expect(logged(/renewal failed/)).toHaveLength(1), { timeout: 15_000 });
    expect(fake.tokenRequests).toBe(1);
    const [line] = logged(/renewal failed/);
    expect(line).toMatchObject({ level: 40, code: 'token_endpoint_error', region: 'eu' });
    expect(JSON.stringify(logLines)).not.toMatch(/tok-\d|secret/);
  });

  it('tries the renewal again after a pause, not on every call, then takes the new token', async () => {
    await signInForThirtySeconds();
    fake.tokenRequests = 0;
    fake.tokenFault = { status: 503 };
    bff.clock.nowMs += 24_500;
    await sites();
    const signedInToken = lastToken();
    await vi.waitFor(() => expect(logged(/renewal failed/)).toHaveLength(1), { timeout: 15_000 });
    for (let i = 0; i < 5; i += 1) expect((await sites()).statusCode).toBe(200);
    expect(fake.tokenRequests).toBe(1);

    fake.tokenFault = undefined;
    bff.clock.nowMs += RENEWAL_RETRY_MIN_MS;
    expect((await sites()).statusCode).toBe(200);
    await vi.waitFor(() => expect(fake.tokenRequests).toBe(2), { timeout: 15_000 });
    await vi.waitFor(
      async () => {
        await sites();
        expect(lastToken()).not.toBe(signedInToken);
      },
      { timeout: 15_000 },
    );
  });

  it('once the token has expired, a failed renewal fails the call with the token endpoint named', async () => {
    await signInForThirtySeconds();
    fake.tokenFault = { status: 503 };
    bff.clock.nowMs += 30_000;
    const response = await sites();
    expect(response.statusCode).toBe(503);
    const problem = ProblemSchema.parse(response.json());
    expect(problem.code).toBe('token_endpoint_error');
    expect(problem.detail).toMatch(/Europe token endpoint/);
    expectOperatorWords(problem.detail);
  });
});

describe('token answers of real authorization servers (RFC 6749 5.1)', () => {
  it('without expires_in uses the token until the upstream refuses it, then renews once', async () => {
    fake.expiresInAs = 'absent';
    await start();
    cookie = await signIn(bff.app);
    expect(logged(/no expires_in/)).toHaveLength(1);
    fake.tokenRequests = 0;
    await sites();
    const signedInToken = lastToken() ?? '';
    // Hours pass, each step inside the session's idle timeout.
    for (let i = 0; i < 10; i += 1) {
      bff.clock.nowMs += 25 * 60 * 1000;
      expect((await sites()).statusCode).toBe(200);
    }
    expect(lastToken()).toBe(signedInToken);
    expect(fake.tokenRequests).toBe(0);

    fake.revoked.add(signedInToken);
    expect((await sites()).statusCode).toBe(200);
    expect(lastToken()).not.toBe(signedInToken);
    expect(fake.tokenRequests).toBe(1);
  });

  it('reads expires_in sent as a numeric string as seconds', async () => {
    fake.expiresInAs = 'string';
    fake.expiresInS = 100;
    await start();
    cookie = await signIn(bff.app);
    fake.tokenRequests = 0;
    bff.clock.nowMs += 79_000;
    await sites();
    const signedInToken = lastToken();
    expect(fake.tokenRequests).toBe(0);
    // Expired after 100 s: read as seconds, not refused as unreadable.
    bff.clock.nowMs += 21_000;
    expect((await sites()).statusCode).toBe(200);
    expect(fake.tokenRequests).toBe(1);
    expect(lastToken()).not.toBe(signedInToken);
  });

  it('refuses an unusable token with token_unreadable and logs which field was wrong', async () => {
    await start();
    fake.on('GET', '/sites', () => ({ total: 0, page: 1, size: 500, sites: [] }));
    const original = fake.expiresInS;
    fake.expiresInS = -5;
    try {
      const response = await signInAnswer(bff.app);
      expect(response.statusCode).toBe(502);
      const problem = ProblemSchema.parse(response.json());
      expect(problem.code).toBe('token_unreadable');
      expectOperatorWords(problem.detail);
      const [line] = logged(/unusable token/);
      expect(line).toMatchObject({ fields: ['expires_in'] });
      expect(JSON.stringify(line)).not.toMatch(/tok-\d/);
    } finally {
      fake.expiresInS = original;
    }
  });
});

describe('sign-in when the token endpoint fails', () => {
  it('a timeout is worded for sign-in, and logged', async () => {
    await start({ upstreamTimeoutMs: 300 });
    fake.tokenFault = 'hang';
    const response = await signInAnswer(bff.app);
    expect(response.statusCode).toBe(504);
    const problem = ProblemSchema.parse(response.json());
    expect(problem.code).toBe('token_endpoint_timeout');
    expect(problem.detail).toMatch(/sign in again/i);
    expectOperatorWords(problem.detail);
    expect(logged(/^the token endpoint did not answer/)[0]).toMatchObject({ region: 'eu' });
  });

  it('an unreachable token endpoint is worded for sign-in, and logged', async () => {
    bff = await buildTestBff(fake, {
      database: database.handle,
      logger: {
        level: 'info',
        stream: { write: (line: string) => void logLines.push(JSON.parse(line)) },
      },
      upstreams: {
        eu: { authUrl: 'http://127.0.0.1:9', baseUrl: `${fake.url}/eu` },
        au: { authUrl: 'http://127.0.0.1:9', baseUrl: `${fake.url}/au` },
      },
    });
    const response = await signInAnswer(bff.app);
    expect(response.statusCode).toBe(502);
    const problem = ProblemSchema.parse(response.json());
    expect(problem.code).toBe('token_endpoint_unreachable');
    expectOperatorWords(problem.detail);
    expect(logged(/^the token endpoint could not be reached/)).toHaveLength(1);
  });
});

describe('client authentication at the token endpoint (RFC 6749 2.3.1)', () => {
  it('sends form fields first, and HTTP Basic once when they are refused; keeps to what worked', async () => {
    fake.tokenClientAuth = 'basic';
    fake.expiresInS = 60;
    await start();
    const response = await signInAnswer(bff.app);
    expect(response.statusCode).toBe(200);
    expect(fake.tokenRequests).toBe(2);
    expect(logged(/accepted HTTP Basic/)[0]).toMatchObject({ level: 40, region: 'eu' });
    expect(JSON.stringify(logLines)).not.toMatch(/secret|tok-\d|Basic [A-Za-z0-9+/=]{8,}/);

    cookie = response.headers['set-cookie']?.toString().split(';')[0] ?? '';
    fake.tokenRequests = 0;
    bff.clock.nowMs += 60_000;
    expect((await sites()).statusCode).toBe(200);
    expect(fake.tokenRequests).toBe(1);
  });

  it('says a wrong secret plainly when neither form fields nor HTTP Basic are accepted', async () => {
    fake.tokenClientAuth = 'basic';
    await start();
    const response = await signInAnswer(bff.app, { clientSecret: 'wrong' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'invalid_credentials' });
    expect(fake.tokenRequests).toBe(2);
    expect(logged(/refused the client credentials/)[0]).toMatchObject({
      region: 'eu',
      clientId: 'client',
      tried: ['form', 'basic'],
    });
  });
});

describe('a change that could not get a token (ledger)', () => {
  beforeAll(() => {
    fake.on('POST', '/device/BAT-1/commands', (_request, reply) =>
      reply.code(202).send({ id: 'cmd_1', message: 'accepted', timestamp: '2026-05-01T10:00:00Z' }),
    );
    // Before sending again the ledger checks the history: the command is not there.
    fake.on('GET', '/device/BAT-1/commands', () => ({
      total: 0,
      page: 1,
      size: 500,
      commands: [],
    }));
  });

  it('is sent when retried with the same Idempotency-Key, since it never left', async () => {
    await signInForThirtySeconds();
    fake.tokenFault = { status: 500 };
    bff.clock.nowMs += 30_000;
    const submit = () =>
      bff.app.inject({
        method: 'POST',
        url: '/api/devices/BAT-1/commands',
        headers: { cookie, ...CSRF, 'idempotency-key': 'submit-once' },
        payload: {
          powerControl: { targetBatteryPowerW: 1000 },
          startTime: '2026-05-01T11:00:00Z',
          endTime: '2026-05-01T12:00:00Z',
        },
      });
    const refused = await submit();
    expect(refused.statusCode).toBe(502);
    expect(refused.json()).toMatchObject({ code: 'token_endpoint_error' });
    expect(fake.seen.filter((s) => s.method === 'POST')).toHaveLength(0);

    fake.tokenFault = undefined;
    const retried = await submit();
    expect(retried.statusCode).toBe(202);
    expect(fake.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
  });
});
