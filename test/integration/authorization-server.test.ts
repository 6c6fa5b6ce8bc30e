/**
 * The BFF against a real OAuth 2.0 authorization server: oidc-provider on 127.0.0.1 as a
 * client-credentials token endpoint whose client authenticates with HTTP Basic only
 * (`client_secret_basic`), answering `expires_in` as it does. The API behind it is a small
 * server that accepts exactly the tokens oidc-provider issued and still holds.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import Provider from 'oidc-provider';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProblemSchema } from '#domain/errors.ts';
import { TOKEN_PATH } from '#domain/token.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { buildServerApp } from '#server/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

const CLIENT = { clientId: 'partner-basic', clientSecret: 'a secret: with + signs & more' };
const TOKEN_TTL_S = 30;
const ORIGIN = 'http://127.0.0.1:8080';
const CSRF = { 'x-csrf': '1', origin: ORIGIN };

let provider: Provider;
let authServer: http.Server;
let authOrigin: string;
let api: FastifyInstance;
let apiOrigin: string;
/** Token requests oidc-provider granted and refused. */
const grants = { success: 0, error: 0 };
/** The BFFs' database, one for the file. */
let testDb: TestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  testDb = await createTestDatabase('pglite');
  database = await testDb.open();
  provider = new Provider('http://127.0.0.1', {
    clients: [
      {
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    clientAuthMethods: ['client_secret_basic'],
    features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
    routes: { token: TOKEN_PATH },
    ttl: { ClientCredentials: TOKEN_TTL_S },
  });
  provider.on('grant.success', () => (grants.success += 1));
  provider.on('grant.error', () => (grants.error += 1));
  authServer = http.createServer(provider.callback());
  await new Promise<void>((resolve) => authServer.listen(0, '127.0.0.1', resolve));
  authOrigin = `http://127.0.0.1:${(authServer.address() as AddressInfo).port}`;

  api = Fastify();
  api.get('/eu/sites', async (request, reply) => {
    const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    const issued = token ? await provider.ClientCredentials.find(token) : undefined;
    if (!issued)
      return reply.code(401).send({ code: 'invalid_token', message: 'unknown or expired token' });
    return { sites: [] };
  });
  await api.listen({ host: '127.0.0.1', port: 0 });
  apiOrigin = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await testDb.drop();
  await api.close();
  authServer.closeAllConnections();
  await new Promise<void>((resolve) => authServer.close(() => resolve()));
});

let bff: FastifyInstance;
let clock: { nowMs: number };
let logLines: Record<string, unknown>[];

beforeEach(async () => {
  grants.success = 0;
  grants.error = 0;
  logLines = [];
  clock = { nowMs: Date.now() };
  const region = { authUrl: authOrigin, baseUrl: `${apiOrigin}/eu` };
  bff = await buildServerApp({
    upstreams: { eu: region, au: region },
    publicOrigin: ORIGIN,
    database,
    logger: {
      level: 'info',
      stream: { write: (line: string) => void logLines.push(JSON.parse(line)) },
    },
    testing: { now: () => clock.nowMs },
  });
});
afterEach(() => bff.close());

const signIn = (clientSecret = CLIENT.clientSecret) =>
  bff.inject({
    method: 'POST',
    url: '/api/session',
    headers: CSRF,
    payload: { region: 'eu', clientId: CLIENT.clientId, clientSecret },
  });
const logged = (pattern: RegExp) => logLines.filter((line) => pattern.test(String(line.msg ?? '')));

describe('oidc-provider with client_secret_basic only', () => {
  it('signs in: form fields are refused, HTTP Basic is accepted, and the token works upstream', async () => {
    const response = await signIn();
    expect(response.statusCode).toBe(200);
    expect(grants).toEqual({ success: 1, error: 1 });
    expect(logged(/accepted HTTP Basic after refusing form fields/)[0]).toMatchObject({
      level: 40,
      region: 'eu',
      clientId: CLIENT.clientId,
      status: 401,
      error: 'invalid_client',
    });
    expect(JSON.stringify(logLines)).not.toContain(CLIENT.clientSecret);

    const cookie = response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const sites = await bff.inject({ method: 'GET', url: '/api/sites', headers: { cookie } });
    expect(sites.statusCode).toBe(200);
    expect(sites.json()).toEqual({ sites: [] });
  });

  it('renews inside the last fifth of the lifetime oidc-provider sends, with HTTP Basic at once', async () => {
    const response = await signIn();
    const cookie = response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    expect(grants).toEqual({ success: 1, error: 1 });
    clock.nowMs += (TOKEN_TTL_S - 5) * 1000;
    const sites = await bff.inject({ method: 'GET', url: '/api/sites', headers: { cookie } });
    expect(sites.statusCode).toBe(200);
    await vi.waitFor(() => expect(grants).toEqual({ success: 2, error: 1 }), { timeout: 15_000 });
  });

  it('answers a wrong secret with invalid_credentials once both methods are refused, and logs both', async () => {
    const response = await signIn('not the secret');
    expect(response.statusCode).toBe(401);
    const problem = ProblemSchema.parse(response.json());
    expect(problem.code).toBe('invalid_credentials');
    expect(grants).toEqual({ success: 0, error: 2 });
    expect(
      logged(/refused the client credentials as form fields and as HTTP Basic/)[0],
    ).toMatchObject({
      region: 'eu',
      clientId: CLIENT.clientId,
      tried: ['form', 'basic'],
      retryStatus: 401,
    });
    expect(JSON.stringify(logLines)).not.toContain('not the secret');
  });
});
