import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  VendorConnectionRequestSchema,
  type ConnectionCheck,
  type VendorConnectionList,
} from '../../domain/connections.ts';
import { REGION_NAMES, RegionSchema, type Region } from '../../domain/token.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { parseInput } from '../http/parse.ts';
import { ProblemError } from '../http/problem.ts';
import { InvalidCredentialsError, type IssuedToken } from '../upstream/token-endpoint.ts';
import type { Sessions } from './sessions.ts';
import type { VendorConnections } from './vendor-connections.ts';

const RegionPathSchema = z.strictObject({ region: RegionSchema });

/**
 * `/api/connections` (company sign-in only; docs/security.md): an administrator lists the
 * regions' vendor connections (never their secrets), registers or replaces one with
 * `PUT /api/connections/{region}`, and checks one with `POST /api/connections/{region}/check`,
 * which requests a token with it. Every route needs the admin role; CSRF and Origin as on every
 * `/api` call.
 */
export async function connectionRoutes(
  app: FastifyInstance,
  options: {
    sessions: Sessions;
    connections: VendorConnections;
    now: () => number;
    /** The region's token endpoint (the upstream module's `token` call). */
    checkToken: (
      region: Region,
      credentials: { clientId: string; clientSecret: string },
    ) => Promise<IssuedToken>;
  },
): Promise<void> {
  const { sessions, connections } = options;

  app.get('/api/connections', async (request) => {
    await sessions.requireOperator(request, 'administer');
    return { connections: await connections.list() } satisfies VendorConnectionList;
  });

  app.put('/api/connections/:region', async (request, reply) => {
    const { operator } = await sessions.requireOperator(request, 'administer');
    const { region } = parseInput(RegionPathSchema, request.params, 'path');
    const credentials = parseInput(VendorConnectionRequestSchema, request.body, 'body');
    await connections.put(region, credentials, operator, options.now());
    request.log.info({ region, clientId: credentials.clientId }, 'vendor connection registered');
    return reply.code(204).send();
  });

  app.post('/api/connections/:region/check', async (request) => {
    await sessions.requireOperator(request, 'administer');
    const { region } = parseInput(RegionPathSchema, request.params, 'path');
    const connection = await connections.get(region);
    if (!connection)
      throw new ProblemError(
        404,
        'no_connection',
        `No vendor connection is registered for ${REGION_NAMES[region]}. Add one first.`,
        { title: 'No vendor connection' },
      );
    try {
      const token = await options.checkToken(region, connection);
      return {
        ok: true,
        ...(token.expiresInS === undefined ? {} : { expiresInS: token.expiresInS }),
      } satisfies ConnectionCheck;
    } catch (error) {
      if (error instanceof InvalidCredentialsError)
        throw new ProblemError(
          502,
          'connection_refused',
          `The ${REGION_NAMES[region]} token endpoint did not accept this connection's client ID or secret. Replace the connection with the credentials the vendor issued.`,
          { title: 'Connection refused' },
        );
      throw error;
    }
  });

  refuseOtherMethods(app, '/api/connections', new Set(['GET', 'HEAD']));
  refuseOtherMethods(app, '/api/connections/:region', new Set(['PUT']));
  refuseOtherMethods(app, '/api/connections/:region/check', new Set(['POST']));
}
