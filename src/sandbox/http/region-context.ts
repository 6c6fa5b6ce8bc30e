import type { FastifyRequest } from 'fastify';
import type { Region } from '#domain/token.ts';
import type { Catalog } from '../fixtures/catalog.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { ClientIdentity } from '../state/client-identity.ts';
import type { SandboxState } from '../state/sandbox-state.ts';
import type { SandboxDialect } from '../vendor/dialect.ts';
import type { FaultInjector } from './faults.ts';

/** What the routes of one region work with. */
export interface RegionContext {
  region: Region;
  catalog: Catalog;
  state: SandboxState;
  faults: FaultInjector;
  dialect: SandboxDialect;
}

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i;

/**
 * The client of the request's bearer token in this region, counted against the injected rate
 * limit (docs/upstream.md, Tokens, Rate limit).
 * @throws SandboxError 401 `UNAUTHORIZED` with `WWW-Authenticate: Bearer error="invalid_token"`
 *   when the token is missing, unknown, of the other region or expired on the sandbox clock;
 *   RateLimitError 429 past the injected limit.
 */
export function authenticate(context: RegionContext, request: FastifyRequest): ClientIdentity {
  const match = BEARER.exec(request.headers.authorization ?? '');
  const client = match?.[1] ? context.state.authenticate(match[1], context.region) : undefined;
  if (!client) {
    const description = match
      ? 'The access token is invalid or expired; obtain a new one from the token endpoint'
      : 'Send Authorization: Bearer <access_token> from the token endpoint';
    throw new SandboxError('UNAUTHORIZED', description, {
      headers: {
        'www-authenticate': `Bearer realm="${context.region}", error="invalid_token", error_description="${match ? 'invalid or expired token' : 'token missing'}"`,
      },
    });
  }
  const params = request.params as { deviceId?: unknown } | undefined;
  const deviceId = typeof params?.deviceId === 'string' ? params.deviceId : undefined;
  context.faults.admit(client.clientId, context.state.nowMs(), deviceId);
  return client;
}
