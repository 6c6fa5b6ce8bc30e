import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { accountOf, actorName, actorOf } from '#domain/account.ts';
import {
  ApiTokenIdSchema,
  ApiTokenListSchema,
  ApiTokenMadeSchema,
  ApiTokenRequestSchema,
  ApiTokenSchema,
} from '#domain/api-tokens.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { ProblemError } from '../http/problem.ts';
import { COMMON_PROBLEMS, declaredRoutes, problemResponse } from '../http/route-declarations.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import { requireSession, sessionOf } from '../session/session-hooks.ts';
import type { Session } from '../session/session-store.ts';
import type { Sessions } from '../session/sessions.ts';
import { apiTokenSealingKey, newApiTokenSecret, type ApiTokenStore } from './api-token-store.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const TokenParamsSchema = z.strictObject({ tokenId: ApiTokenIdSchema });

/** Who made or revoked a token, in words: the person's name, else the client. */
function byName(session: Session): string {
  return actorName(session) ?? `client ${session.clientId}`;
}

/**
 * `/api/tokens` (docs/security.md, API tokens): the administrator of an account (the signed-in
 * partner with the credentials form) lists, makes and revokes its API tokens. No route here
 * declares a token use, so a token cannot make or revoke tokens.
 */
export async function apiTokenRoutes(
  app: FastifyInstance,
  options: {
    sessions: Sessions;
    store: ApiTokenStore;
    box: SecretBox;
    sites: SiteDirectory;
    now: () => number;
  },
): Promise<void> {
  const { sessions, store, box, sites, now } = options;
  const routes = declaredRoutes(app);
  const tags = ['tokens'];
  const administer = requireSession(sessions, 'administer');

  routes.get(
    '/api/tokens',
    {
      preValidation: administer,
      schema: {
        tags,
        summary: "The account's API tokens, revoked ones too; never a secret",
        response: { 200: ApiTokenListSchema, ...COMMON_PROBLEMS },
      },
    },
    async (request) => ({ tokens: await store.list(accountOf(sessionOf(request))) }),
  );

  routes.post(
    '/api/tokens',
    {
      preValidation: administer,
      schema: {
        tags,
        summary: 'Make an API token for the signed-in account; its secret is answered this once',
        body: ApiTokenRequestSchema,
        response: {
          201: ApiTokenMadeSchema,
          404: problemResponse('A site given is not bound to this account (`unknown_or_unbound`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { id, secret } = newApiTokenSecret();
      const nowMs = now();
      const { name, role, siteIds, expiresInDays } = request.body;
      await sites.refuseUnbound(session, siteIds ?? [], 'the token');
      const token = await store.create({
        id,
        secret,
        actor: actorOf(session),
        madeByName: byName(session),
        name,
        role,
        siteIds: siteIds ?? [],
        // Credentials form: the token acts under the maker's secret, sealed to it; company
        // sign-in: under the region's vendor connection, as every person does.
        vendorSecretCiphertext: session.operator
          ? undefined
          : box.seal(session.clientSecret, apiTokenSealingKey(id)),
        nowMs,
        expiresAtMs: nowMs + expiresInDays * DAY_MS,
      });
      request.log.info({ tokenId: id, role, sites: token.siteIds.length }, 'API token made');
      return reply.code(201).send({ token, secret });
    },
  );
  refuseOtherMethods(app, '/api/tokens', new Set(['GET', 'HEAD', 'POST']));

  routes.delete(
    '/api/tokens/:tokenId',
    {
      preValidation: administer,
      schema: {
        tags,
        summary: 'Revoke an API token: it is refused from now on',
        params: TokenParamsSchema,
        response: {
          200: ApiTokenSchema.describe('The token as revoked'),
          404: problemResponse('The account has no such token (`not_found`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const revoked = await store.revoke(
        accountOf(session),
        request.params.tokenId,
        byName(session),
        now(),
      );
      if (!revoked) throw new ProblemError(404, 'not_found', 'This account has no such API token.');
      request.log.info({ tokenId: revoked.id }, 'API token revoked');
      return revoked;
    },
  );
  refuseOtherMethods(app, '/api/tokens/:tokenId', new Set(['DELETE']));
}
