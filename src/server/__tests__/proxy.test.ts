import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProblemSchema } from '../../domain/errors.ts';
import { CSRF, buildTestBff, signIn, type TestBff } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';

let fake: FakeUpstream;
let bff: TestBff;
let cookie: string;

const submission = {
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-05-01T11:00:00Z',
  endTime: '2026-05-01T12:00:00Z',
};

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', () => ({ sites: [] }));
  fake.on('POST', '/device/BAT-1/commands', (_request, reply) =>
    reply.code(202).send({ id: 'cmd_1', message: 'accepted', timestamp: '2026-05-01T10:00:00Z' }),
  );
  fake.on('DELETE', '/sites', (_request, reply) => reply.code(204).send());
  fake.on('PUT', '/devices/BAT-1/commands/cmd_1/cancel', (_request, reply) =>
    reply.code(409).send({
      code: 'not_cancellable',
      message: 'The command is completed and cannot be cancelled',
    }),
  );
  fake.on('GET', '/devices/BAT-1/commands', (request) => ({ commands: [], query: request.query }));
  for (const [deviceId, details] of [
    ['BAT-2', { conflictingCommandId: 'cmd_9', ...submission }],
    ['BAT-3', { conflictingCommandId: 'cmd_9', startTime: 'yesterday' }],
  ] as const)
    fake.on('POST', `/device/${deviceId}/commands`, (_request, reply) =>
      reply.code(409).send({ code: 'window_overlap', message: 'Overlaps cmd_9', details }),
    );
  fake.on('GET', '/devices/BAT-1/commands/html', (_request, reply) =>
    reply.type('text/html').send('<html>oops</html>'),
  );
  fake.on('GET', '/devices/BAT-1/commands/busy', (_request, reply) =>
    reply.code(429).header('retry-after', '7').send({ code: 'rate_limited', message: 'Slow down' }),
  );
  fake.on('GET', '/devices/BAT-1/commands/broken', (_request, reply) =>
    reply.code(500).type('text/plain').send('stack trace with secrets'),
  );
  fake.on('GET', '/devices/BAT-1/commands/slow', () => new Promise(() => undefined));
  fake.on('GET', '/devices/BAT-1/commands/moved', (_request, reply) =>
    reply.redirect('http://evil.example/steal', 302),
  );
});
afterAll(() => fake.close());
beforeEach(async () => {
  fake.seen.length = 0;
  fake.tokenRequests = 0;
  fake.expiresInS = 3600;
  bff = await buildTestBff(fake);
  cookie = await signIn(bff.app);
});
afterEach(() => bff.app.close());

const api = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
  headers = {},
) =>
  bff.app.inject({
    method,
    url,
    headers: { cookie, ...(method === 'GET' ? {} : CSRF), ...headers },
    ...(payload ? { payload } : {}),
  });

describe('pass-through', () => {
  it('keeps the upstream status and body, and sends the parsed body upstream', async () => {
    const response = await api('POST', '/api/device/BAT-1/commands', submission);
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({
      id: 'cmd_1',
      message: 'accepted',
      timestamp: '2026-05-01T10:00:00Z',
    });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(fake.seen[0]).toMatchObject({
      method: 'POST',
      url: '/device/BAT-1/commands',
      body: submission,
    });
  });

  it('answers an upstream 204 empty', async () => {
    const response = await api('DELETE', '/api/sites', { siteId: 'PLANT-1' });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
  });

  it('forwards the parsed history query only', async () => {
    const response = await api(
      'GET',
      '/api/devices/BAT-1/commands?startTime=2026-05-01T00:00:00Z&endTime=2026-05-02T00:00:00Z&status=received',
    );
    expect(response.statusCode).toBe(200);
    expect(fake.seen[0]?.url).toBe(
      '/devices/BAT-1/commands?startTime=2026-05-01T00%3A00%3A00Z&endTime=2026-05-02T00%3A00%3A00Z&status=received',
    );
    const tooLong = await api(
      'GET',
      '/api/devices/BAT-1/commands?startTime=2026-04-01T00:00:00Z&endTime=2026-05-02T00:00:00Z',
    );
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().detail).toContain('30 days');
    expect(fake.seen).toHaveLength(1);
  });

  it("never sends the browser's cookie, authorization or forwarding headers upstream", async () => {
    await api('GET', '/api/sites', undefined, {
      authorization: 'Bearer browser-token',
      'x-forwarded-for': '10.0.0.1',
      'x-forwarded-host': 'evil.example',
    });
    const headers = fake.seen[0]?.headers ?? {};
    expect(headers.cookie).toBeUndefined();
    expect(headers.authorization).toMatch(/^Bearer tok-\d+$/);
    expect(headers['x-forwarded-for']).toBeUndefined();
    expect(headers['x-forwarded-host']).toBeUndefined();
  });
});

describe('upstream errors as problem+json', () => {
  it('carries the upstream status, code, message and body', async () => {
    const response = await api('PUT', '/api/devices/BAT-1/commands/cmd_1/cancel');
    expect(response.statusCode).toBe(409);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(ProblemSchema.parse(response.json())).toEqual({
      title: 'Conflict',
      status: 409,
      code: 'not_cancellable',
      detail: 'The command is completed and cannot be cancelled',
      upstream: {
        code: 'not_cancellable',
        message: 'The command is completed and cannot be cancelled',
      },
    });
  });

  it('passes window_overlap details on only when they have their contract shape', async () => {
    const good = await api('POST', '/api/device/BAT-2/commands', submission);
    expect(good.statusCode).toBe(409);
    expect(good.json()).toMatchObject({
      code: 'window_overlap',
      upstream: { details: { conflictingCommandId: 'cmd_9', startTime: submission.startTime } },
    });
    const bad = await api('POST', '/api/device/BAT-3/commands', submission);
    expect(bad.statusCode).toBe(409);
    expect(bad.json()).toMatchObject({ code: 'window_overlap', detail: 'Overlaps cmd_9' });
    expect(bad.json().upstream).toEqual({ code: 'window_overlap', message: 'Overlaps cmd_9' });
  });

  it('passes Retry-After on', async () => {
    const response = await api('GET', '/api/devices/BAT-1/commands/busy');
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.json().code).toBe('rate_limited');
  });

  it('hides an unreadable upstream error body', async () => {
    const response = await api('GET', '/api/devices/BAT-1/commands/broken');
    expect(response.statusCode).toBe(500);
    expect(response.json().code).toBe('upstream_error');
    expect(response.body).not.toContain('stack trace');
  });

  it('refuses a success body that is not JSON, and does not follow redirects', async () => {
    const html = await api('GET', '/api/devices/BAT-1/commands/html');
    expect(html.statusCode).toBe(502);
    expect(html.json().code).toBe('upstream_content_type');
    const moved = await api('GET', '/api/devices/BAT-1/commands/moved');
    expect(moved.statusCode).toBe(502);
    expect(moved.headers.location).toBeUndefined();
  });

  it('answers 502 upstream_unreachable when the upstream is down', async () => {
    const region = { authUrl: fake.url + '/eu', baseUrl: 'http://127.0.0.1:9/eu' };
    const down = await buildTestBff(fake, { upstreams: { eu: region, au: region } });
    const downCookie = await signIn(down.app);
    const response = await down.app.inject({
      method: 'GET',
      url: '/api/sites',
      headers: { cookie: downCookie },
    });
    expect(response.statusCode).toBe(502);
    expect(response.json().code).toBe('upstream_unreachable');
    await down.app.close();
  });
});

describe('problem details', () => {
  it('name neither a spec section nor the BFF, so an operator can read them', async () => {
    const batch = {
      devices: Array.from({ length: 51 }, (_, i) => `BAT-${i}`),
      command: submission,
    };
    const answers = [
      await api('GET', '/api/nope'),
      await api('GET', '/api/devices/BAT%2f1/commands'),
      await api('POST', '/api/sites', { siteId: 'x'.repeat(70_000) }),
      await api('GET', '/api/devices/BAT-1/commands/moved'),
      await api('GET', '/api/ledger'),
      await api('POST', '/api/devices/commands/batch', batch),
      await api('POST', '/api/device/BAT-1/commands', { ...submission, powerControl: {} }),
      await api(
        'GET',
        '/api/devices/BAT-1/commands?startTime=2026-04-01T00:00:00Z&endTime=2026-05-02T00:00:00Z',
      ),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([404, 400, 413, 502, 503, 400, 400, 400]);
    for (const answer of answers)
      expect(ProblemSchema.parse(answer.json()).detail).not.toMatch(/\bBFF\b|\bspec \d|DESIGN/);
  });

  it('say what to do next, without ISO times or advice that does not fit a read', async () => {
    await bff.app.close();
    bff = await buildTestBff(fake, { upstreamTimeoutMs: 200 });
    cookie = await signIn(bff.app);
    const answers = [
      await api('GET', '/api/devices/BAT-1/commands/slow'),
      await api('GET', '/api/devices/BAT-1/commands/html'),
      await api('GET', '/api/devices/BAT-1/commands/moved'),
      await api('GET', '/api/ledger'),
    ];
    expect(answers.map((a) => a.json().code)).toEqual([
      'upstream_timeout',
      'upstream_content_type',
      'upstream_error',
      'ledger_unavailable',
    ]);
    for (const answer of answers) {
      const detail = ProblemSchema.parse(answer.json()).detail ?? '';
      expect(detail).not.toMatch(/\bBFF\b|\bspec \d|\d{4}-\d\d-\d\dT|command list/);
      expect(detail).toMatch(/try again|report it|still shows/i);
    }
  });
});

describe('the token', () => {
  it('is reused until shortly before expires_in runs out, then renewed', async () => {
    fake.expiresInS = 100;
    cookie = await signIn(bff.app);
    fake.tokenRequests = 0;
    await api('GET', '/api/sites');
    expect(fake.tokenRequests).toBe(0);
    bff.clock.nowMs += 79_000;
    await api('GET', '/api/sites');
    expect(fake.tokenRequests).toBe(0);
    bff.clock.nowMs += 2_000;
    const response = await api('GET', '/api/sites');
    expect(response.statusCode).toBe(200);
    // Renewed beside the call, which still used the valid token.
    await vi.waitFor(() => expect(fake.tokenRequests).toBe(1));
  });

  it('is renewed once for 100 concurrent calls on an expired token', async () => {
    fake.expiresInS = 60;
    cookie = await signIn(bff.app);
    bff.clock.nowMs += 60_000;
    fake.tokenRequests = 0;
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => api('GET', '/api/sites')),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(responses.map(() => 200));
    expect(fake.tokenRequests).toBe(1);
  });

  it('is renewed once after an upstream 401, and the call tried once more', async () => {
    await api('GET', '/api/sites');
    const first = fake.seen[0]?.headers.authorization ?? '';
    fake.revoked.add(first.replace('Bearer ', ''));
    fake.seen.length = 0;
    fake.tokenRequests = 0;
    const response = await api('GET', '/api/sites');
    expect(response.statusCode).toBe(200);
    expect(fake.tokenRequests).toBe(1);
    const used = fake.seen.map((s) => s.headers.authorization);
    expect(used).toHaveLength(2);
    expect(used[0]).toBe(first);
    expect(used[1]).not.toBe(first);
  });

  it('ends the session when the stored secret stops working', async () => {
    fake.expiresInS = 60;
    cookie = await signIn(bff.app);
    fake.clientSecret = 'rotated';
    try {
      bff.clock.nowMs += 60_000;
      const response = await api('GET', '/api/sites');
      expect(response.statusCode).toBe(401);
      expect(response.json().code).toBe('not_signed_in');
      const session = await api('GET', '/api/session');
      expect(session.statusCode).toBe(401);
    } finally {
      fake.clientSecret = 'secret';
    }
  });
});

describe('headers', () => {
  it('sets the security headers on every answer', async () => {
    for (const url of ['/api/session', '/api/nope', '/nothing-here']) {
      const response = await bff.app.inject({ method: 'GET', url });
      expect(response.headers['content-security-policy']).toBe(
        "default-src 'self';script-src 'self';style-src 'self' 'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o=' 'sha256-gYiS/BvZvRcK27JIXTuwhZ3hs2+VJ1X+2gUlE+farlg=';img-src 'self' data:;connect-src 'self';frame-ancestors 'none';base-uri 'self';form-action 'self'",
      );
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('keeps document-only headers off API answers and sends them with pages', async () => {
    const api = await bff.app.inject({ method: 'GET', url: '/api/session' });
    expect(api.headers['cache-control']).toBe('no-store');
    expect(api.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(api.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(api.headers['cross-origin-opener-policy']).toBeUndefined();
    expect(api.headers['x-xss-protection']).toBeUndefined();
    const page = await bff.app.inject({ method: 'GET', url: '/nothing-here' });
    expect(page.headers['cache-control']).toBeUndefined();
    expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(page.headers['x-dns-prefetch-control']).toBe('off');
  });
});
