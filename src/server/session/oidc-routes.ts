import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { OidcRefusal } from '#domain/session.ts';
import { RegionSchema } from '#domain/token.ts';
import { declaredRoutes, problemResponse, redirectResponse } from '../http/route-declarations.ts';
import {
  OIDC_CALLBACK_PATH,
  OIDC_POST_LOGOUT_PATH,
  OIDC_TRANSACTION_MAX_AGE_MS,
  OidcTransactionSchema,
  type OidcClient,
} from './oidc.ts';
import { OidcSignInError } from './oidc-refusals.ts';
import type { SecretBox } from './secret-box.ts';
import { hostCookieName, type SessionCookie } from './session-cookie.ts';
import type { Sessions } from './sessions.ts';

const StartQuerySchema = z.strictObject({ region: RegionSchema.default('eu') });

const idpParameter = (description: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(description);

/** openid-client checks these from the URL: the declaration refuses nothing. */
const CallbackQuerySchema = z.looseObject({
  code: idpParameter('The authorization code'),
  state: idpParameter("The attempt's state, checked against its cookie"),
  iss: idpParameter("The IdP's issuer identifier (RFC 9207)"),
  error: idpParameter("The IdP's refusal, such as `access_denied`"),
  error_description: idpParameter("The IdP's words for its refusal"),
});

const TRANSACTION_AAD = 'oidc transaction';

/** `SameSite=Lax`: the IdP's redirect back is a cross-site navigation (RFC 6265bis 5.4.7). Sealed. */
function transactionCookie(cookie: SessionCookie) {
  return attemptCookie(cookie, 'powerdeck_oidc', 'lax');
}

/**
 * The sealed ID token of a refused sign-in, for the IdP logout's `id_token_hint` (Okta ends a
 * session only with one). `SameSite=Strict`: only powerdeck's own page reads it.
 */
function signOutHintCookie(cookie: SessionCookie) {
  return attemptCookie(cookie, 'powerdeck_signout', 'strict');
}

/** A cookie of a company sign-in attempt: it lasts as long as the attempt may. */
function attemptCookie(cookie: SessionCookie, name: string, sameSite: 'lax' | 'strict') {
  return {
    name: hostCookieName(name, cookie.secure),
    options: {
      httpOnly: true,
      sameSite,
      path: '/',
      secure: cookie.secure,
      maxAge: OIDC_TRANSACTION_MAX_AGE_MS / 1000,
    } as const,
  };
}

const SIGN_OUT_HINT_AAD = 'oidc sign-out hint';

/** Browsers keep cookies up to 4096 bytes; without the hint most IdPs ask the person to confirm. */
const MAX_SIGN_OUT_HINT_CHARS = 3_800;

/** The cookie is cleared either way. */
export function takeSignOutHint(
  request: FastifyRequest,
  reply: FastifyReply,
  box: SecretBox,
  cookie: SessionCookie,
): string | undefined {
  const hint = signOutHintCookie(cookie);
  const sealed = request.cookies[hint.name];
  if (sealed === undefined) return undefined;
  reply.clearCookie(hint.name, { ...hint.options, maxAge: 0 });
  try {
    return box.open(sealed, SIGN_OUT_HINT_AAD);
  } catch {
    return undefined;
  }
}

export function refusalLocation(refusal: OidcRefusal): string {
  return `${OIDC_POST_LOGOUT_PATH}?refused=${refusal}`;
}

/** The IdP's code in the log, never a token; the browser goes to the sign-in page, which says why. */
function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  error: OidcSignInError,
  hint: { box: SecretBox; cookie: SessionCookie },
): FastifyReply {
  request.log.warn(
    { refusal: error.refusal, reason: error.reason, why: error.message, ...error.details },
    'company sign-in refused',
  );
  if (error.signOutHint !== undefined) {
    const sealed = hint.box.seal(error.signOutHint, SIGN_OUT_HINT_AAD);
    const cookie = signOutHintCookie(hint.cookie);
    if (sealed.length <= MAX_SIGN_OUT_HINT_CHARS)
      reply.setCookie(cookie.name, sealed, cookie.options);
  }
  return reply.redirect(refusalLocation(error.refusal), 303);
}

/** docs/security.md, Company sign-in. */
export async function oidcRoutes(
  app: FastifyInstance,
  options: {
    sessions: Sessions;
    oidc: OidcClient;
    box: SecretBox;
    cookie: SessionCookie;
    publicOrigin: () => string;
  },
): Promise<void> {
  const { sessions, oidc, box } = options;
  const attempt = transactionCookie(options.cookie);
  const routes = declaredRoutes(app);
  const tags = ['session'];

  routes.get(
    '/api/session/oidc',
    {
      schema: {
        tags,
        summary: 'Start a company sign-in: to the IdP, with a fresh attempt sealed in a cookie',
        security: [],
        querystring: StartQuerySchema,
        response: {
          303: redirectResponse(
            "To the IdP's authorization endpoint; or to `/sign-in?refused=<why>` when the IdP cannot be reached",
          ),
          400: problemResponse('The query failed its schema (`invalid_request`).'),
        },
      },
    },
    async (request, reply) => {
      const { region } = request.query;
      let started;
      try {
        started = await oidc.start(region);
      } catch (error) {
        if (!(error instanceof OidcSignInError)) throw error;
        return refuse(request, reply, error, { box, cookie: options.cookie });
      }
      reply.setCookie(
        attempt.name,
        box.seal(JSON.stringify(started.transaction), TRANSACTION_AAD),
        attempt.options,
      );
      return reply.redirect(started.url.toString(), 303);
    },
  );

  routes.get(
    OIDC_CALLBACK_PATH,
    {
      schema: {
        tags,
        summary:
          "The IdP's answer to a company sign-in: the session starts, or the refusal says why",
        security: [],
        querystring: CallbackQuerySchema,
        response: {
          303: redirectResponse(
            'Signed in: to `/`. Refused (no role, an answer that does not match the attempt, ...): to `/sign-in?refused=<why>`',
          ),
        },
      },
    },
    async (request, reply) => {
      const sealed = request.cookies[attempt.name];
      reply.clearCookie(attempt.name, { ...attempt.options, maxAge: 0 });
      try {
        const transaction = openTransaction(box, sealed);
        const currentUrl = new URL(request.raw.url ?? '/', options.publicOrigin());
        const { operator, idToken } = await oidc.finish(currentUrl, transaction);
        await sessions.signInOperator(request, reply, {
          region: transaction.region,
          operator,
          idToken,
        });
        request.log.info(
          { issuer: operator.issuer, subject: operator.subject, role: operator.role },
          'company sign-in',
        );
        return reply.redirect('/', 303);
      } catch (error) {
        if (!(error instanceof OidcSignInError)) throw error;
        return refuse(request, reply, error, { box, cookie: options.cookie });
      }
    },
  );
}

function openTransaction(box: SecretBox, sealed: string | undefined) {
  if (sealed === undefined)
    throw new OidcSignInError('response_mismatch', 'no sign-in attempt cookie came back');
  let value: unknown;
  try {
    value = JSON.parse(box.open(sealed, TRANSACTION_AAD));
  } catch {
    throw new OidcSignInError('response_mismatch', 'the sign-in attempt cookie does not open');
  }
  const parsed = OidcTransactionSchema.safeParse(value);
  if (!parsed.success)
    throw new OidcSignInError('response_mismatch', 'the sign-in attempt cookie is malformed');
  return parsed.data;
}
