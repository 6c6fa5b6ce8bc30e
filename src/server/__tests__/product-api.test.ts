import { Validator } from '@seriousme/openapi-schema-validator';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProblemSchema } from '#domain/errors.ts';
import type { ServerOptions } from '../app.ts';
import { routeTable } from '../http/route-table.ts';
import { refusalProblem } from '../upstream/upstream-problem.ts';
import { PAGE_SIZE } from '../upstream/upstream-api.ts';
import { CSRF, buildTestBff, fileDatabase, signIn, type TestBff } from './support/bff.ts';
import { oidcEnvFor } from './support/idp-sign-in.ts';
import {
  startFakeUpstream,
  vendorCommand,
  vendorError,
  vendorSite,
  type FakeUpstream,
} from './support/fake-upstream.ts';

const database = fileDatabase();

/** The parts of an OpenAPI document the tests read. */
interface OpenApiDocument {
  [key: string]: unknown;
  paths: Record<
    string,
    Record<string, { responses: Record<string, unknown>; tags?: string[]; security?: unknown }>
  >;
}

let fake: FakeUpstream;
let bff: TestBff;
let cookie: string;
/** Wraps every answer of the fake in the `{ code, msg, data }` envelope when set. */
let envelope = false;
/** How the fake's site list answers instead of the list, when set. */
let sitesFault: 'broken' | 'html' | 'moved' | 'slow' | undefined;

const submission = {
  powerControl: { targetBatteryPowerW: -3000 },
  startTime: '2026-05-01T11:00:00Z',
  endTime: '2026-05-01T12:00:00Z',
};
const record = {
  id: 'cmd_1',
  deviceId: 'BAT-1',
  ...submission,
  status: 'cancelled',
  receivedAt: '2026-05-01T10:00:00Z',
  cancelledAt: '2026-05-01T10:30:00Z',
  cancelReason: 'deviceFault',
};

/** `body` as the vendor answers it now: bare, or in the envelope with the status as `code`. */
/** A second BFF on the test's database, signed in: its answer to the site list; closed after. */
async function sitesThroughAnotherBff(
  overrides: Partial<ServerOptions> = {},
): Promise<LightMyRequestResponse> {
  const other = await buildTestBff(fake, { ...overrides, database: database.handle });
  try {
    const otherCookie = await signIn(other.app);
    return await other.app.inject({
      method: 'GET',
      url: '/api/sites',
      headers: { cookie: otherCookie },
    });
  } finally {
    await other.app.close();
  }
}

const answer = (status: number, body: unknown) =>
  envelope ? { code: status, msg: status < 300 ? 'success' : 'Conflict', data: body } : body;

/** The vendor's site list, paged as the vendor pages it (`size` items a page). */
const SITES = [
  vendorSite('PLANT-1', ['BAT-1', 'BAT-2']),
  vendorSite('PLANT-AU', ['BAT-AU'], { countryCode: 'AU', timezone: 'UTC+10:00' }),
];

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.on('GET', '/sites', (request, reply) => {
    if (sitesFault === 'broken')
      return reply.code(500).type('text/plain').send('stack trace with secrets');
    if (sitesFault === 'html') return reply.type('text/html').send('<html>oops</html>');
    if (sitesFault === 'moved') return reply.redirect('http://evil.example/steal', 302);
    if (sitesFault === 'slow') return new Promise(() => undefined);
    const { page = '1', size = '20' } = request.query as Record<string, string>;
    const start = (Number(page) - 1) * Number(size);
    return answer(200, {
      total: SITES.length,
      page: Number(page),
      size: Number(size),
      sites: SITES.slice(start, start + Number(size)),
    });
  });
  fake.on('POST', '/device/BAT-1/commands', (_request, reply) =>
    reply
      .code(202)
      .send(answer(202, { id: 'cmd_1', message: 'accepted', timestamp: '2026-05-01T10:00:00Z' })),
  );
  fake.on('DELETE', '/sites/PLANT-1', () => answer(200, { message: 'offboarding success' }));
  fake.on('PUT', '/devices/BAT-1/commands/cmd_1/cancel', (_request, reply) =>
    reply
      .code(409)
      .send(
        envelope
          ? { code: 409, msg: 'Conflict', data: null }
          : vendorError('COMMAND_COMPLETED', 'The command is completed (see spec 3.1)'),
      ),
  );
  fake.on('PUT', '/devices/BAT-2/commands/cmd_2/cancel', () =>
    answer(200, {
      message: 'Command cancelled',
      commandId: 'cmd_2',
      timestamp: '2026-05-01T10:05:00Z',
    }),
  );
  fake.on('GET', '/devices/BAT-1/commands/cmd_1', () => answer(200, vendorCommand(record)));
  fake.on('GET', '/devices/BAT-1/commands/cmd_renamed', () =>
    answer(200, { ...record, id: 'cmd_renamed' }),
  );
  fake.on('GET', '/device/BAT-1/commands', (request) => {
    const { page = '1' } = request.query as Record<string, string>;
    // Two pages: a full one of PAGE_SIZE, then one more.
    // The vendor's two spellings of cancelReason: its documented one last.
    const commands =
      page === '1'
        ? Array.from({ length: PAGE_SIZE }, (_, i) => vendorCommand({ ...record, id: `cmd_p${i}` }))
        : [{ ...record, id: 'cmd_last' }];
    return answer(200, {
      deviceId: 'BAT-1',
      total: PAGE_SIZE + 1,
      page: Number(page),
      size: PAGE_SIZE,
      commands,
    });
  });
  // The vendor's refusals the product words, one route each: method, path, status, code, message.
  const refusals = [
    [
      'POST',
      '/device/BAT-2/commands',
      422,
      'CAPABILITY_EXCEEDED',
      'targetBatteryPowerW out of range',
    ],
    ['POST', '/device/BAT-3/commands', 422, 'DEVICE_NOT_SUPPORTED', 'no such control'],
    ['POST', '/device/BAT-4/commands', 409, 'TIME_WINDOW_OVERLAP', 'Overlaps cmd_9'],
    ['POST', '/device/BAT-5/commands', 400, 'INVALID_REQUEST', 'startTime must be ISO 8601'],
    ['POST', '/sites', 409, 'SITE_ALREADY_BOUND', 'Site already authorized'],
    ['GET', '/devices/BAT-9/commands/gone', 404, 'NOT_FOUND', 'Resource not found'],
  ] as const;
  for (const [method, path, status, code, message] of refusals)
    fake.on(method, path, (_request, reply) => reply.code(status).send(vendorError(code, message)));
});
afterAll(() => fake.close());
beforeEach(async () => {
  fake.seen.length = 0;
  fake.tokenRequests = 0;
  fake.expiresInS = 3600;
  envelope = false;
  sitesFault = undefined;
  bff = await buildTestBff(fake, { database: database.handle, testing: { readModelTickMs: 0 } });
  // The file's tests share a database: each meets devices with nothing queued or spent.
  await bff.app.forgetUpstream();
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

describe("the vendor's answers in the product's terms", () => {
  it.each([false, true])(
    'reads every page of the site list, ranges from kW and clocks from country and offset (envelope %s)',
    async (wrapped) => {
      envelope = wrapped;
      const response = await api('GET', '/api/sites');
      expect(response.statusCode).toBe(200);
      const { sites } = response.json() as { sites: { siteId: string }[] };
      expect(sites.map((site) => site.siteId)).toEqual(['PLANT-1', 'PLANT-AU']);
      expect(sites[0]).toMatchObject({
        timeZone: 'Europe/Berlin',
        clock: { source: 'inferred', vendorOffset: '+01:00' },
        countryCode: 'DE',
        devices: [
          {
            deviceId: 'BAT-1',
            online: true,
            faulted: false,
            capabilities: {
              targetBatteryPowerW: { min: -5000, max: 5000 },
              chargeCutoffSocPercent: { min: 5, max: 100 },
              siteExportLimitW: { min: 0, max: 65_535 },
            },
          },
          { deviceId: 'BAT-2' },
        ],
      });
      // Sydney keeps daylight saving time and Brisbane not: the offset stays.
      expect(sites[1]).toMatchObject({
        timeZone: '+10:00',
        clock: { source: 'offset', vendorOffset: '+10:00' },
      });
      const reads = fake.seen.filter((s) => s.url.startsWith('/sites?'));
      expect(reads.map((s) => new URLSearchParams(s.url.split('?')[1]).get('size'))).toEqual([
        String(PAGE_SIZE),
      ]);
    },
  );

  it('reads a site list of several pages to its last page', async () => {
    SITES.push(...Array.from({ length: PAGE_SIZE }, (_, i) => vendorSite(`PLANT-X${i}`, [])));
    try {
      const response = await api('GET', '/api/sites');
      expect((response.json() as { sites: unknown[] }).sites).toHaveLength(PAGE_SIZE + 2);
      expect(fake.seen.filter((s) => s.url.startsWith('/sites?'))).toHaveLength(2);
    } finally {
      SITES.splice(2);
    }
  });

  it('reads a history to its last page, with one cancelReason for either spelling', async () => {
    // The read model learns the bound devices from the site list, then reads each history.
    await api('GET', '/api/sites');
    await bff.app.readModel.reads.runDue();
    const reads = fake.seen.filter((s) => s.url.startsWith('/device/BAT-1/commands?'));
    expect(reads.map((s) => new URLSearchParams(s.url.split('?')[1]).get('page'))).toEqual([
      '1',
      '2',
    ]);
    expect(new URLSearchParams(reads[0]?.url.split('?')[1]).get('size')).toBe(String(PAGE_SIZE));
    const response = await api(
      'GET',
      '/api/devices/BAT-1/commands?startTime=2026-05-01T00:00:00Z&endTime=2026-05-02T00:00:00Z&status=cancelled',
    );
    expect(response.statusCode).toBe(200);
    const { commands } = response.json() as { commands: { id: string; cancelReason: string }[] };
    expect(commands).toHaveLength(PAGE_SIZE + 1);
    for (const id of ['cmd_p0', 'cmd_last']) {
      const command = commands.find((c) => c.id === id);
      expect(command).toMatchObject({ id, cancelReason: 'deviceFault' });
      expect(command).not.toHaveProperty('cancellReason');
      const status = await api('GET', `/api/devices/BAT-1/commands/${id}`);
      expect(status.json()).toMatchObject({ id, cancelReason: 'deviceFault' });
      expect(status.json()).not.toHaveProperty('cancellReason');
    }
  });

  it('answers a submission, a cancel and an unbind in the product shapes', async () => {
    const submitted = await api('POST', '/api/devices/BAT-1/commands', submission);
    expect(submitted.statusCode).toBe(202);
    expect(submitted.json()).toMatchObject({ id: 'cmd_1', timestamp: '2026-05-01T10:00:00Z' });
    expect(fake.seen.find((s) => s.method === 'POST')?.body).toEqual(submission);
    const cancelled = await api('PUT', '/api/devices/BAT-2/commands/cmd_2/cancel');
    expect(cancelled.json()).toEqual({
      deviceId: 'BAT-2',
      commandId: 'cmd_2',
      status: 'cancelled',
      cancelledAt: '2026-05-01T10:05:00Z',
      cancelReason: 'manuallyCancel',
    });
    const unbound = await api('DELETE', '/api/sites/PLANT-1');
    expect(unbound.statusCode).toBe(204);
    expect(unbound.body).toBe('');
    expect(fake.seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/sites/PLANT-1' });
  });

  it("reads the OpenAPI document's camelCase token as well as the guide's snake_case one", async () => {
    fake.tokenShape = 'camel';
    try {
      expect((await sitesThroughAnotherBff()).statusCode).toBe(200);
    } finally {
      fake.tokenShape = 'snake';
    }
  });

  it("never sends the browser's cookie, authorization or forwarding headers upstream", async () => {
    await api('GET', '/api/sites', undefined, {
      authorization: 'Basic c3RvbGVu',
      'x-forwarded-for': '10.0.0.1',
    });
    const sent = fake.seen[0]?.headers ?? {};
    expect(sent.cookie).toBeUndefined();
    expect(sent.authorization).toMatch(/^Bearer tok-/);
    expect(sent['x-forwarded-for']).toBeUndefined();
  });
});

describe('vendor refusals as product problems (decision 006, section 2)', () => {
  it.each([
    ['a 422 outside the range, with the range worked out', 'BAT-2', 422, 'capability_out_of_range'],
    ['a 422 DEVICE_NOT_SUPPORTED', 'BAT-3', 422, 'control_not_supported'],
    ['a 409 TIME_WINDOW_OVERLAP', 'BAT-4', 409, 'window_overlap'],
    ['a 400, a defect of powerdeck', 'BAT-5', 502, 'upstream_refused_request'],
  ])('words %s', async (_what, deviceId, status, code) => {
    const response = await api('POST', `/api/devices/${deviceId}/commands`, {
      ...submission,
      powerControl: { targetBatteryPowerW: -9000 },
    });
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toContain('application/problem+json');
    const problem = ProblemSchema.parse(response.json());
    expect(problem.code).toBe(code);
    expect(problem.upstream).toBeDefined();
    expect(problem.detail).not.toMatch(/try again|errorCode|\/device|spec \d/i);
  });

  it('names the value and the range of a value outside it', async () => {
    const response = await api('POST', '/api/devices/BAT-2/commands', {
      ...submission,
      powerControl: { targetBatteryPowerW: -9000 },
    });
    expect(response.json()).toMatchObject({
      details: {
        deviceId: 'BAT-2',
        property: 'targetBatteryPowerW',
        value: -9000,
        min: -5000,
        max: 5000,
      },
    });
    expect(response.json().detail).toContain(
      '-9000 W is outside the range of BAT-2 (-5000 W to 5000 W)',
    );
  });

  // A submission the vendor refuses for its limit waits in the queue of changes (write-path
  // tests); the refusal's words are what a read of the device is answered when it meets one.
  it('says when a rate-limited device takes its next call', () => {
    const nowMs = Date.parse('2026-05-01T10:00:00Z');
    const problem = refusalProblem(
      429,
      { 'retry-after': '37', 'content-type': 'application/json' },
      JSON.stringify({
        code: 'RATE_LIMIT_EXCEEDED',
        // A limit other than the documented 2: the refusal's words follow the vendor's.
        message: 'Rate limit exceeded: 3 requests per minute per device.',
        details: { deviceId: 'BAT-6', limit: 3, windowSeconds: 60 },
        timestamp: '2026-05-01T10:00:00Z',
      }),
      { operation: 'history', deviceId: 'BAT-6', nowMs },
    );
    expect(problem.problem.status).toBe(429);
    expect(problem.problem.code).toBe('device_rate_limited');
    expect(problem.headers['retry-after']).toBe('37');
    expect(problem.problem.details).toEqual({
      deviceId: 'BAT-6',
      retryAt: new Date(nowMs + 37_000).toISOString(),
    });
    expect(problem.problem.detail).toContain('in 37 seconds');
    expect(problem.problem.detail).toContain('the vendor allows three per device per minute');
    expect(problem.problem.detail).not.toMatch(/try again|errorCode|\/device|spec \d/i);
  });

  it.each([false, true])(
    'words a 409 on a cancel as not cancellable, a 409 on a bind as bound elsewhere (envelope %s)',
    async (wrapped) => {
      envelope = wrapped;
      const cancel = await api('PUT', '/api/devices/BAT-1/commands/cmd_1/cancel');
      expect(cancel.statusCode).toBe(409);
      expect(cancel.json().code).toBe('not_cancellable');
      const bind = await api('POST', '/api/sites', { siteId: 'PLANT-9' });
      expect(bind.statusCode).toBe(409);
      expect(bind.json().code).toBe('site_bound_elsewhere');
      expect(bind.json().detail).toContain('bound to another partner account');
    },
  );

  it('words a 404 as not found, or not bound to this account', async () => {
    const response = await api('GET', '/api/devices/BAT-9/commands/gone');
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe('unknown_or_unbound');
    expect(response.json().detail).toContain('not bound to this account');
  });

  it('hides an unreadable vendor error body, refuses a non-JSON success and a redirect', async () => {
    sitesFault = 'broken';
    const broken = await api('GET', '/api/sites');
    expect(broken.statusCode).toBe(500);
    expect(broken.json().code).toBe('upstream_error');
    expect(broken.body).not.toContain('secrets');
    sitesFault = 'html';
    expect((await api('GET', '/api/sites')).json().code).toBe('upstream_content_type');
    sitesFault = 'moved';
    const moved = await api('GET', '/api/sites');
    expect(moved.statusCode).toBe(502);
    expect(moved.json().code).toBe('upstream_error');
  });

  it('answers 502 upstream_unreachable when the vendor is down', async () => {
    const region = { authUrl: fake.url + '/eu', baseUrl: 'http://127.0.0.1:9/eu' };
    const response = await sitesThroughAnotherBff({ upstreams: { eu: region, au: region } });
    expect(response.statusCode).toBe(502);
    expect(response.json().code).toBe('upstream_unreachable');
  });
});

describe("the product's OpenAPI document", () => {
  /** A document's operations, `METHOD /path` each. */
  const operationsOf = (document: OpenApiDocument) =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
  /** The router's routes of `app` as the document writes them, but the 405s and HEADs. */
  const declaredRoutesOf = (app: TestBff['app']) =>
    routeTable(app)
      .filter((route) => !route.hidden && route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);

  it('is valid OpenAPI 3.1 and holds every product route with its answers', async () => {
    const response = await bff.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json() as OpenApiDocument;
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    // Every route of the router (the 405 answers of other methods aside) is in the document,
    // and the document holds nothing else.
    expect(operationsOf(document).sort()).toEqual(declaredRoutesOf(bff.app).sort());
    expect(operationsOf(document)).toEqual(
      expect.arrayContaining([
        'GET /api/sites',
        'POST /api/sites',
        'DELETE /api/sites/{siteId}',
        'PUT /api/sites/{siteId}/time-zone',
        'DELETE /api/sites/{siteId}/time-zone',
        'GET /api/devices/{deviceId}/commands',
        'POST /api/devices/{deviceId}/commands',
        'GET /api/devices/{deviceId}/commands/{commandId}',
        'PUT /api/devices/{deviceId}/commands/{commandId}/cancel',
        'POST /api/batches',
        'PUT /api/batches/{batchCommandId}/cancel',
        'GET /api/ledger',
        'POST /api/devices/{deviceId}/changes',
        'GET /api/changes',
        'GET /api/changes/{changeId}',
        'DELETE /api/changes/{changeId}',
        'GET /api/overview',
      ]),
    );
    expect(Object.keys(document.paths['/api/batches']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['202', '400', '401', '403', '409', '422', '429', '502']),
    );
  });

  it('holds every route of the BFF in company sign-in with the test routes, each with its answers, those to bad bodies too', async () => {
    // Discovery waits for the first sign-in, so the issuer is never asked.
    const teams = await buildTestBff(fake, {
      database: database.handle,
      oidc: oidcEnvFor('http://127.0.0.1:9'),
      testRoutes: true,
    });
    try {
      const document = (
        await teams.app.inject({ method: 'GET', url: '/api/openapi.json' })
      ).json() as OpenApiDocument;
      expect((await new Validator().validate(structuredClone(document))).valid).toBe(true);
      const operations = operationsOf(document);
      expect(operations.sort()).toEqual(declaredRoutesOf(teams.app).sort());
      expect(operations).toEqual(
        expect.arrayContaining([
          'POST /api/session',
          'GET /api/session',
          'DELETE /api/session',
          'GET /api/session/mode',
          'GET /api/session/oidc',
          'GET /api/session/oidc/callback',
          'GET /api/connections',
          'GET /api/connections/{region}',
          'PUT /api/connections/{region}',
          'POST /api/connections/{region}/check',
          'POST /api/fleet-jobs',
          'GET /api/fleet-jobs',
          'GET /api/fleet-jobs/{jobId}',
          'POST /api/fleet-jobs/{jobId}/{action}',
          'POST /api/fleet-plans',
          'POST /api/fleet-plans/check',
          'GET /api/events',
          'GET /api/notifications',
          'POST /api/notifications/read',
          'POST /api/test/notifications',
          'GET /api/openapi.json',
          'GET /healthz',
          'GET /readyz',
        ]),
      );
      // Each declares its answers, problems included, and a route that needs no session says so.
      for (const [path, methods] of Object.entries(document.paths))
        for (const [method, operation] of Object.entries(methods)) {
          expect(Object.keys(operation.responses).length, `${method} ${path}`).toBeGreaterThan(0);
          expect(operation.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
        }
      const operation = (path: string, method: string) => document.paths[path]?.[method];
      expect(Object.keys(operation('/api/fleet-jobs', 'post')?.responses ?? {})).toEqual(
        expect.arrayContaining(['202', '400', '401', '403', '413', '422', '503']),
      );
      expect(Object.keys(operation('/api/connections/{region}', 'put')?.responses ?? {})).toEqual(
        expect.arrayContaining(['200', '400', '401', '403', '404', '422', '503']),
      );
      expect(operation('/api/events', 'get')?.responses['200']).toMatchObject({
        content: { 'text/event-stream': {} },
      });
      expect(Object.keys(operation('/api/session/oidc', 'get')?.responses ?? {})).toContain('303');
      for (const open of [
        operation('/api/session', 'post'),
        operation('/api/session/mode', 'get'),
        operation('/api/session/oidc/callback', 'get'),
        operation('/healthz', 'get'),
      ])
        expect(open?.security).toEqual([]);
      expect(operation('/api/notifications', 'get')?.security).toBeUndefined();

      // A sweep of bad bodies: every operation that takes one answers too large a body (over the
      // largest limit, a dispatch plan's 8 MiB) and one of another type than JSON with a status
      // it declares.
      const tooLarge = JSON.stringify({ pad: 'x'.repeat(8 * 1024 * 1024) });
      const undeclared: string[] = [];
      let swept = 0;
      for (const [path, methods] of Object.entries(document.paths))
        for (const [method, { responses }] of Object.entries(methods)) {
          if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
          swept++;
          for (const [contentType, payload] of [
            ['application/json', tooLarge],
            ['text/plain', 'siteId=PLANT-1'],
          ] as const) {
            const response = await teams.app.inject({
              method: method.toUpperCase() as 'POST',
              url: path.replace(/\{\w+\}/g, 'x1'),
              headers: { ...CSRF, 'content-type': contentType },
              payload,
            });
            if (!(String(response.statusCode) in responses))
              undeclared.push(`${method} ${path} ${contentType}: ${response.statusCode}`);
            // The refusal names the route's own limit, not the app's.
            if (path === '/api/fleet-plans' && contentType === 'application/json')
              expect(response.json()).toMatchObject({
                code: 'body_too_large',
                detail: 'The request body is larger than 8 MiB.',
              });
          }
        }
      expect(swept).toBeGreaterThanOrEqual(20);
      expect(undeclared).toEqual([]);
    } finally {
      await teams.app.close();
    }
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
      await api('GET', '/api/devices/BAT-9/commands/gone'),
      await api('POST', '/api/batches', batch),
      await api('POST', '/api/devices/BAT-1/commands', { ...submission, powerControl: {} }),
      await api(
        'GET',
        '/api/devices/BAT-1/commands?startTime=2026-04-01T00:00:00Z&endTime=2026-05-02T00:00:00Z',
      ),
    ];
    sitesFault = 'moved';
    answers.push(await api('GET', '/api/sites'));
    expect(answers.map((a) => a.statusCode)).toEqual([404, 400, 413, 404, 400, 400, 400, 502]);
    for (const answer of answers)
      expect(ProblemSchema.parse(answer.json()).detail).not.toMatch(/\bBFF\b|\bspec \d|DESIGN/);
  });

  it('say what to do next, without ISO times or advice that does not fit a read', async () => {
    await bff.app.close();
    bff = await buildTestBff(fake, { database: database.handle, upstreamTimeoutMs: 200 });
    cookie = await signIn(bff.app);
    const answers = [];
    for (const fault of ['slow', 'html', 'moved'] as const) {
      sitesFault = fault;
      answers.push(await api('GET', '/api/sites'));
    }
    expect(answers.map((a) => a.json().code)).toEqual([
      'upstream_timeout',
      'upstream_content_type',
      'upstream_error',
    ]);
    for (const answer of answers) {
      const detail = ProblemSchema.parse(answer.json()).detail ?? '';
      expect(detail).not.toMatch(/\bBFF\b|\bspec \d|\d{4}-\d\d-\d\dT|command list/);
      expect(detail).toMatch(/try again|report it|still shows/i);
    }
  });
});

describe('the token', () => {
  // The read model reads bound devices under a token of its own: with no site bound, every
  // token request the fake counts is the session's.
  beforeEach(() => {
    const bound = SITES.splice(0);
    return () => void SITES.push(...bound);
  });

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
    await vi.waitFor(() => expect(fake.tokenRequests).toBe(1), { timeout: 15_000 });
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
