import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { VENDOR_API_BASE_PATH } from '../../upstream/upstream-caller.ts';

/** The vendor's error body (its OpenAPI document's `Error`). */
export function vendorError(errorCode: string, message: string) {
  return { errorCode, message, timestamp: '2026-05-01T10:00:00Z' };
}

/** A device as the vendor's `Device` writes it: power in kW (5 kW both ways by default). */
export function vendorDevice(
  id: string,
  siteId: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id,
    siteId,
    name: id,
    model: 'PD-10',
    maxChargePowerKw: 5,
    maxDischargePowerKw: 5,
    online: true,
    faultStatus: false,
    ...extra,
  };
}

/**
 * A site as the vendor's `Site` writes it, Berlin's country and offset by default
 * (`DE`, `UTC+1:00`: shown on Europe/Berlin), with `deviceIds` as its devices.
 */
export function vendorSite(
  id: string,
  deviceIds: readonly string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id,
    name: id,
    countryCode: 'DE',
    timezone: 'UTC+1:00',
    online: true,
    faultStatus: false,
    devices: deviceIds.map((deviceId) => vendorDevice(deviceId, id)),
    ...extra,
  };
}

/** One page holding every item of a vendor list (`{ total, page, size, <key> }`). */
export function vendorPage(key: string, items: readonly unknown[], extra: object = {}) {
  return { total: items.length, page: 1, size: 500, [key]: items, ...extra };
}

/**
 * A vendor command status record as the vendor writes it (`cancellReason`), from a product
 * status record's fields.
 */
export function vendorCommand(record: Record<string, unknown>): Record<string, unknown> {
  const { cancelReason, ...rest } = record;
  return { ...rest, ...(cancelReason ? { cancellReason: cancelReason } : {}) };
}

/** A request the fake upstream saw, with the headers the BFF sent. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: FastifyRequest['headers'];
  body: unknown;
}

export type FakeHandler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * A minimal upstream on 127.0.0.1:0 for the BFF's unit tests: a token endpoint that accepts
 * `client`/`clientSecret` and `client-2`/`secret-2` (tokens `tok-1`, `tok-2`... in order of
 * issue; `clientOf` tells whose a token is), and API routes the test programs with `on()`.
 * Every API request is recorded in `seen`; token requests are counted in `tokenRequests`.
 */
export interface FakeUpstream {
  url: string;
  seen: SeenRequest[];
  tokenRequests: number;
  expiresInS: number;
  /** How the token answer writes `expires_in`: a number (default), a numeric string, or not at all. */
  expiresInAs: 'number' | 'string' | 'absent';
  /**
   * How the token answer is written: the guide's OAuth 2.0 `snake` case (`access_token`), or the
   * vendor's OpenAPI document's `camel` case (`accessToken`, `expiresIn`).
   */
  tokenShape: 'snake' | 'camel';
  /**
   * What the token endpoint does instead of issuing tokens: answer this status (`{ error }`
   * body), or hang (never answer). Undefined: it works.
   */
  tokenFault: { status: number } | 'hang' | undefined;
  /** Which client authentication the token endpoint accepts (RFC 6749 2.3.1); default form fields. */
  tokenClientAuth: 'form' | 'basic';
  /** Tokens the API refuses with 401 from now on. */
  revoked: Set<string>;
  /** The secret the token endpoint accepts for `client`. */
  clientSecret: string;
  /** The client ID a request's bearer token was issued to (undefined for unknown tokens). */
  clientOf(request: FastifyRequest): string | undefined;
  on(method: string, path: string, handler: FakeHandler): void;
  close(): Promise<void>;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const app: FastifyInstance = Fastify();
  const handlers = new Map<string, FakeHandler>();
  const clientOfToken = new Map<string, string>();
  const state: FakeUpstream = {
    url: '',
    seen: [],
    tokenRequests: 0,
    expiresInS: 3600,
    expiresInAs: 'number',
    tokenShape: 'snake',
    tokenFault: undefined,
    tokenClientAuth: 'form',
    revoked: new Set(),
    clientSecret: 'secret',
    clientOf: (request) =>
      clientOfToken.get((request.headers.authorization ?? '').replace(/^Bearer /, '')),
    on: (method, path, handler) => handlers.set(`${method} ${path}`, handler),
    close: () => app.close(),
  };
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  let serial = 0;
  app.post('/eu/api/auth/oauth2/token', async (request, reply) => {
    state.tokenRequests += 1;
    if (state.tokenFault === 'hang') return new Promise(() => undefined);
    if (state.tokenFault)
      return reply.code(state.tokenFault.status).send({ error: 'temporarily_unavailable' });
    const form = request.body as Record<string, string>;
    const secrets: Record<string, string> = { client: state.clientSecret, 'client-2': 'secret-2' };
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const [clientId = '', clientSecret] =
      state.tokenClientAuth === 'basic'
        ? Buffer.from(basic ?? '', 'base64')
            .toString('utf8')
            .split(':')
            .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')))
        : [form.client_id, form.client_secret];
    if (secrets[clientId] === undefined || clientSecret !== secrets[clientId])
      return reply.code(401).send({ error: 'invalid_client' });
    const token = `tok-${++serial}`;
    clientOfToken.set(token, clientId);
    const expiresIn = {
      number: state.expiresInS,
      string: String(state.expiresInS),
      absent: undefined,
    };
    if (state.tokenShape === 'camel')
      return {
        accessToken: token,
        refreshToken: `refresh-${token}`,
        tokenType: 'Bearer',
        expiresIn: expiresIn[state.expiresInAs],
      };
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: expiresIn[state.expiresInAs],
    };
  });
  app.all('/eu/*', async (request, reply) => {
    const url = request.url.slice(`/eu${VENDOR_API_BASE_PATH}`.length);
    state.seen.push({ method: request.method, url, headers: request.headers, body: request.body });
    const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!token.startsWith('tok-') || state.revoked.has(token))
      return reply
        .code(401)
        .send(vendorError('UNAUTHORIZED', 'The access token is invalid or expired'));
    const handler = handlers.get(`${request.method} ${url.split('?')[0]}`);
    if (!handler) return reply.code(404).send(vendorError('NOT_FOUND', 'no such fake route'));
    return handler(request, reply);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  state.url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return state;
}
