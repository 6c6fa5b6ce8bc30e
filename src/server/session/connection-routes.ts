import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  ConnectionCheckSchema,
  VendorConnectionListSchema,
  VendorConnectionRequestSchema,
  VendorConnectionSavedSchema,
  VendorConnectionStateSchema,
  type ConnectionChange,
  type ConnectionCheck,
  type VendorConnectionList,
  type VendorConnectionSaved,
  type VendorConnectionState,
} from '#domain/connections.ts';
import { REGION_NAMES, RegionSchema, type Region } from '#domain/token.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { ProblemError } from '../http/problem.ts';
import { declaredRoutes, problemResponse } from '../http/route-declarations.ts';
import { operatorOf, requireOperator } from './session-hooks.ts';
import { InvalidCredentialsError, type RequestToken } from '../upstream/token-endpoint.ts';
import type { OperatorIdentity } from './session-store.ts';
import type { Sessions } from './sessions.ts';
import type { VendorConnections } from './vendor-connections.ts';

const RegionPathSchema = z.strictObject({ region: RegionSchema });

export interface ConnectionChangeIntent {
  region: Region;
  operator: OperatorIdentity;
  change: ConnectionChange;
}

export interface ConnectionAuditEntry {
  /** `checked` false when saved without a token from the endpoint. */
  saved(checked: boolean): Promise<void>;
  refused(problem: ProblemError): Promise<void>;
}

/** The command ledger, wired in `app.ts` (it sits above this module). `begin` writes the intent first. */
export interface ConnectionAudit {
  begin(intent: ConnectionChangeIntent): Promise<ConnectionAuditEntry>;
}

/** They say nothing of the credentials: they could not be checked. */
const UNCHECKABLE_CODES = new Set([
  'token_endpoint_error',
  'token_endpoint_unreachable',
  'token_endpoint_timeout',
  'token_unreadable',
]);

/**
 * `/api/connections` (company sign-in only; docs/security.md, Vendor connections). Every change,
 * refused ones included, is recorded in the audit.
 */
export async function connectionRoutes(
  app: FastifyInstance,
  options: {
    sessions: Sessions;
    connections: VendorConnections;
    now: () => number;
    /** @throws InvalidCredentialsError when it refuses the client; ProblemError `token_*`. */
    checkToken: RequestToken;
    audit: ConnectionAudit;
  },
): Promise<void> {
  const { sessions, connections, audit } = options;
  const routes = declaredRoutes(app);
  const tags = ['connections'];
  const problems = {
    401: problemResponse('Not signed in (`not_signed_in`).'),
    403: problemResponse(
      'CSRF proof missing (`csrf`), or the role may not do this (`forbidden_role`).',
    ),
    404: problemResponse('Signed in with the credentials form: no connections (`not_found`).'),
  };

  routes.get(
    '/api/connections',
    {
      preValidation: requireOperator(sessions, 'administer'),
      schema: {
        tags,
        summary: "The regions' vendor connections, never their secrets (administrators)",
        response: { 200: VendorConnectionListSchema, ...problems },
      },
    },
    async () => ({ connections: await connections.list() }) satisfies VendorConnectionList,
  );

  routes.get(
    '/api/connections/:region',
    {
      preValidation: requireOperator(sessions, 'read'),
      schema: {
        tags,
        summary: 'Whether the region has a vendor connection (every role)',
        params: RegionPathSchema,
        response: {
          200: VendorConnectionStateSchema,
          400: problemResponse('Not a region (`invalid_request`).'),
          ...problems,
        },
      },
    },
    async (request) => {
      const { region } = request.params;
      return {
        region,
        registered: (await connections.get(region)) !== undefined,
      } satisfies VendorConnectionState;
    },
  );

  routes.put(
    '/api/connections/:region',
    {
      preValidation: requireOperator(sessions, 'administer'),
      schema: {
        tags,
        summary:
          "Register or replace the region's vendor connection, checked with a token request first",
        params: RegionPathSchema,
        body: VendorConnectionRequestSchema,
        response: {
          200: VendorConnectionSavedSchema,
          400: problemResponse('The region or body failed its schema (`invalid_request`).'),
          ...problems,
          422: problemResponse(
            'The token endpoint refused the client ID or secret; nothing saved (`connection_refused`).',
          ),
          503: problemResponse(
            'The token endpoint could not be reached or failed; nothing saved unless `saveUnchecked` (`connection_unchecked`).',
          ),
        },
      },
    },
    async (request) => {
      const operator = operatorOf(request);
      const { region } = request.params;
      const { saveUnchecked, ...credentials } = request.body;
      const previous = await connections.get(region);
      const entry = await audit.begin({
        region,
        operator,
        change: {
          change: previous ? 'replace' : 'register',
          clientId: credentials.clientId,
          ...(previous ? { previousClientId: previous.clientId } : {}),
          ...(saveUnchecked ? { saveUnchecked: true } : {}),
        },
      });
      const context = { region, clientId: credentials.clientId };
      let checked: boolean;
      try {
        await options.checkToken(region, credentials);
        checked = true;
      } catch (error) {
        const refusal = checkRefusal(error, region, saveUnchecked === true);
        if (refusal === 'save unchecked') checked = false;
        else {
          await entry.refused(
            refusal ??
              new ProblemError(
                500,
                'internal_error',
                'The check failed unexpectedly; see the log.',
              ),
          );
          request.log.info(
            { ...context, code: refusal?.problem.code ?? 'internal_error' },
            'vendor connection not saved: its check failed',
          );
          throw refusal ?? error;
        }
      }
      await connections.put(region, credentials, operator, options.now());
      await entry.saved(checked);
      request.log.info(
        { ...context, checked, replaced: previous !== undefined },
        'vendor connection registered',
      );
      return { checked } satisfies VendorConnectionSaved;
    },
  );

  routes.post(
    '/api/connections/:region/check',
    {
      preValidation: requireOperator(sessions, 'administer'),
      schema: {
        tags,
        summary: "Check the region's saved connection with a token request",
        params: RegionPathSchema,
        response: {
          200: ConnectionCheckSchema,
          400: problemResponse('Not a region (`invalid_request`).'),
          ...problems,
          404: problemResponse(
            'No connection is registered for the region (`no_connection`), or signed in with the credentials form (`not_found`).',
          ),
          502: problemResponse(
            "The token endpoint refused the saved connection's client ID or secret (`connection_refused`), or failed.",
          ),
          503: problemResponse('The token endpoint could not be reached.'),
          504: problemResponse('The token endpoint did not answer in time.'),
        },
      },
    },
    async (request) => {
      const { region } = request.params;
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
    },
  );

  refuseOtherMethods(app, '/api/connections', new Set(['GET', 'HEAD']));
  refuseOtherMethods(app, '/api/connections/:region', new Set(['GET', 'HEAD', 'PUT']));
  refuseOtherMethods(app, '/api/connections/:region/check', new Set(['POST']));
}

/** docs/security.md, Vendor connections. Undefined for an unexpected failure. */
function checkRefusal(
  error: unknown,
  region: Region,
  saveUnchecked: boolean,
): ProblemError | 'save unchecked' | undefined {
  const name = REGION_NAMES[region];
  if (error instanceof InvalidCredentialsError)
    return new ProblemError(
      422,
      'connection_refused',
      `The ${name} token endpoint did not accept this client ID or secret, so the connection was not saved. Check both against what the vendor issued for ${name}, then save again.`,
      { title: 'Connection refused' },
    );
  if (error instanceof ProblemError && UNCHECKABLE_CODES.has(error.problem.code)) {
    if (saveUnchecked) return 'save unchecked';
    return new ProblemError(
      503,
      'connection_unchecked',
      `The ${name} token endpoint could not be reached or failed, so this client ID and secret could not be checked, and the connection was not saved. Try again in a moment, or save it without the check.`,
      { title: 'Connection not checked' },
    );
  }
  return undefined;
}
