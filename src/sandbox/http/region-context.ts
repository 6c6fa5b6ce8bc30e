import type { FastifyRequest } from 'fastify';
import type { Region } from '../../domain/token.ts';
import type { Catalog } from '../fixtures/catalog.ts';
import { SandboxError } from '../sandbox-error.ts';
import type { ClientIdentity } from '../state/client-identity.ts';
import type { SandboxState } from '../state/sandbox-state.ts';
import type { FaultInjector } from './faults.ts';

/** What the routes of one region work with. */
export interface RegionContext {
  region: Region;
  catalog: Catalog;
  state: SandboxState;
  faults: FaultInjector;
}

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i;

/**
 * The client of the request's bearer token in this region, counted against the rate limit.
 * @throws SandboxError 401 `invalid_token` with `WWW-Authenticate: Bearer error="invalid_token"`
 *   when the token is missing, unknown, of the other region or expired on the sandbox clock;
 *   429 `rate_limited` past the injected limit.
 */
export function authenticate(context: RegionContext, request: FastifyRequest): ClientIdentity {
  const match = BEARER.exec(request.headers.authorization ?? '');
  const client = match?.[1] ? context.state.authenticate(match[1], context.region) : undefined;
  if (!client) {
    const description = match
      ? 'The access token is invalid or expired; obtain a new one from the token endpoint'
      : 'Send Authorization: Bearer <access_token> from the token endpoint';
    throw new SandboxError('invalid_token', description, undefined, {
      headers: {
        'www-authenticate': `Bearer realm="${context.region}", error="invalid_token", error_description="${match ? 'invalid or expired token' : 'token missing'}"`,
      },
    });
  }
  context.faults.admit(client.clientId, context.state.nowMs());
  return client;
}
