import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { MAX_API_TOKEN_SITES, type ApiTokenReach } from '#domain/api-tokens.ts';
import { LOWEST_ROLE, ROLE_NAMES, roleAllows, type Permission, type Role } from '#domain/roles.ts';
import { ProblemError } from '../http/problem.ts';
import type { ApiTokenUse } from '../http/token-use.ts';
import { bearerTokenOf, isApiPath } from '../http/request-guards.ts';
import { actingFor } from '../session/acting-for.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { StoredSession } from '../session/session-store.ts';
import type { Sessions } from '../session/sessions.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import { apiTokenSealingKey, type ApiTokenStore, type StoredApiToken } from './api-token-store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API token the request carries, once accepted for its route. */
    apiToken: StoredApiToken | null;
  }
}

/** Default requests per token per minute (docs/security.md, API tokens). */
export const DEFAULT_API_TOKEN_REQUESTS_PER_MINUTE = 120;

export interface ApiTokenAuthDeps {
  store: ApiTokenStore;
  sessions: Sessions;
  sites: SiteDirectory;
  box: SecretBox;
  now: () => number;
  requestsPerMinute?: number | undefined;
}

/**
 * Authenticates `Authorization: Bearer` on `/api` routes in `onRequest`, after the CSRF guard and
 * before any route's session hook: the token must be known, unrevoked and unexpired, the route
 * must declare what a token needs ({@link tokenUse}), the token's role must hold it, and a token
 * limited to sites is let through only to a device or site on them. The token then acts as a
 * sign-in of its account whose person is the token (named with its maker), so routes and the
 * ledger see the same who-acts-for-which-account as for a person (docs/security.md, API tokens).
 *
 * @throws ProblemError 401 `token_invalid`, `token_expired`, `token_revoked`; 403
 *   `token_not_accepted`, `forbidden_role`, `token_outside_sites`; 429 `too_many_token_requests`.
 */
export async function installApiTokenAuth(
  app: FastifyInstance,
  deps: ApiTokenAuthDeps,
): Promise<void> {
  app.decorateRequest('apiToken', null);
  await app.register(rateLimit, { global: false });
  const limit = app.createRateLimit({
    max: deps.requestsPerMinute ?? DEFAULT_API_TOKEN_REQUESTS_PER_MINUTE,
    timeWindow: 60_000,
    keyGenerator: (request) => `api-token ${request.apiToken?.id ?? ''}`,
  });

  // A callback hook: no promise per request for the calls without a token (every browser's).
  app.addHook('onRequest', (request, _reply, done) => {
    const url = request.raw.url ?? '/';
    const presented = isApiPath(url) ? bearerTokenOf(request) : undefined;
    // An unknown path or another method of a known one answers as without a token (404, 405).
    const schema = request.routeOptions.schema as { hide?: boolean } | undefined;
    if (!presented || request.routeOptions.url === undefined || schema?.hide === true) {
      done();
      return;
    }
    authenticate(request, presented).then(() => done(), done);
  });

  const authenticate = async (request: FastifyRequest, presented: string): Promise<void> => {
    const token = await deps.store.verify(presented);
    const nowMs = deps.now();
    if (!token)
      throw new ProblemError(
        401,
        'token_invalid',
        'This API token is not one powerdeck made: check that the whole token was copied after "Bearer ". An administrator can make a new one on the Tokens page.',
        { title: 'Unknown API token' },
      );
    if (token.revokedAtMs !== undefined)
      throw new ProblemError(
        401,
        'token_revoked',
        `The API token "${token.name}" was revoked. Ask an administrator for a new one.`,
        { title: 'API token revoked' },
      );
    if (nowMs >= token.expiresAtMs)
      throw new ProblemError(
        401,
        'token_expired',
        `The API token "${token.name}" expired on ${new Date(token.expiresAtMs).toUTCString()}. Ask an administrator for a new one.`,
        { title: 'API token expired' },
      );

    request.apiToken = token;
    const rate = await limit(request);
    if (!rate.isAllowed && rate.isExceeded)
      throw new ProblemError(
        429,
        'too_many_token_requests',
        `The API token "${token.name}" made more than ${rate.max} requests in a minute. Wait ${rate.ttlInSeconds} s and try again.`,
        { headers: { 'retry-after': String(Math.max(1, rate.ttlInSeconds)) } },
      );

    const use: ApiTokenUse | undefined = request.routeOptions.config.apiToken;
    if (!use)
      throw new ProblemError(
        403,
        'token_not_accepted',
        'This route is for people signed in at powerdeck and takes no API token. The routes a token may use are those of the API document (/api/openapi.json) that list `apiToken` under security.',
        { title: 'Not for API tokens' },
      );
    if (use.reach === 'public') return;
    if (!roleAllows(token.role, use.permission))
      throw new ProblemError(403, 'forbidden_role', roleRefusal(token, use.permission), {
        title: 'Not allowed for this token',
      });

    request.sessionLookup = Promise.resolve(tokenSignIn(token, deps.box, nowMs));
    if (token.siteIds.length > 0) await requireOnSites(request, token, use.reach, deps);
    await deps.store.noteUse(token, nowMs);
  };
}

/**
 * The token as a sign-in of its account (the routes' who-acts-for-which-account): its person is
 * the token, named with its maker, so every change it makes is recorded under both. Company
 * sign-in: a person of the maker's issuer (subject `api-token:<ID>`), so the company's audit shows
 * it and it reads the company's, acting through the region's vendor connection as every person
 * does (`Sessions.require`). Credentials form: a typed name, acting under the maker's vendor
 * secret sealed to the token. The token's role is checked here against each route's declaration.
 */
function tokenSignIn(token: StoredApiToken, box: SecretBox, nowMs: number): StoredSession {
  const name = `${token.name} (API token made by ${token.madeByName})`;
  const key = apiTokenSealingKey(token.id);
  const maker = token.madeBy.operator;
  const person = maker
    ? { operator: { issuer: maker.issuer, subject: key, name, role: token.role } }
    : { operatorName: name };
  const acting = actingFor({
    box,
    key,
    sealedSecret: token.vendorSecretCiphertext ?? null,
    actor: token.account,
    nowMs,
  });
  return {
    ...(acting ?? { id: key, ...token.account, createdAtMs: nowMs, lastSeenAtMs: nowMs }),
    ...person,
  };
}

async function requireOnSites(
  request: FastifyRequest,
  token: StoredApiToken,
  reach: ApiTokenReach,
  deps: ApiTokenAuthDeps,
): Promise<void> {
  const params = (request.params ?? {}) as Record<string, unknown>;
  let siteId: string | undefined;
  if (reach === 'site' && typeof params['siteId'] === 'string') siteId = params['siteId'];
  if (reach === 'device' && typeof params['deviceId'] === 'string') {
    const session = await deps.sessions.require(request);
    siteId = (await deps.sites.siteOf(session, [params['deviceId']])).siteId;
  }
  if (siteId !== undefined && token.siteIds.includes(siteId)) return;
  const sites = token.siteIds.slice(0, MAX_API_TOKEN_SITES).join(', ');
  throw new ProblemError(
    403,
    'token_outside_sites',
    reach === 'account'
      ? `The API token "${token.name}" is limited to the sites ${sites}; this route acts on the whole account. Use a token for every site.`
      : `The API token "${token.name}" is limited to the sites ${sites}; this ${reach === 'device' ? 'device' : 'site'} is on none of them.`,
    { title: 'Outside the token’s sites' },
  );
}

function roleRefusal(token: StoredApiToken, permission: Permission): string {
  const needed: Role = LOWEST_ROLE[permission];
  return `The API token "${token.name}" has the ${ROLE_NAMES[token.role]} role; this route needs ${ROLE_NAMES[needed]}${needed === 'dispatcher' ? ' or administrator' : ''}. Ask an administrator for a token with that role.`;
}
