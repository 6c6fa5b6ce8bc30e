import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { RegionSchema } from '../../domain/token.ts';
import { parseInput } from '../http/parse.ts';
import {
  OIDC_CALLBACK_PATH,
  OIDC_TRANSACTION_MAX_AGE_MS,
  OidcSignInError,
  OidcTransactionSchema,
  type OidcClient,
  type OidcRefusal,
} from './oidc.ts';
import type { SecretBox } from './secret-box.ts';
import type { SessionCookie } from './session-cookie.ts';
import type { Sessions } from './sessions.ts';

const StartQuerySchema = z.strictObject({ region: RegionSchema.default('eu') });

/** Associated data of the sealed attempt cookie: it opens as nothing else. */
const TRANSACTION_AAD = 'oidc transaction';

/**
 * The attempt cookie: `SameSite=Lax`, unlike the session cookie, because the IdP's redirect back
 * is a cross-site top-level navigation, on which browsers send Lax cookies but not Strict ones
 * (RFC 6265bis 5.4.7); sealed, so the browser holds state, nonce and verifier without reading or
 * changing them; ten minutes at most.
 */
function transactionCookie(cookie: SessionCookie) {
  return {
    name: cookie.secure ? '__Host-powerdeck_oidc' : 'powerdeck_oidc',
    options: {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: cookie.secure,
      maxAge: OIDC_TRANSACTION_MAX_AGE_MS / 1000,
    } as const,
  };
}

/** Pages of a refused sign-in, in the operator's words: status, title, what to do. */
const REFUSAL_PAGES: Record<OidcRefusal, { status: number; title: string; text: string }> = {
  no_role: {
    status: 403,
    title: 'Your account has no powerdeck role',
    text: 'Your company account signed in, but it holds none of the powerdeck roles (viewer, dispatcher or administrator). Ask your administrator to give you one, then sign in again.',
  },
  response_mismatch: {
    status: 400,
    title: 'This sign-in could not be completed',
    text: 'The answer from your company sign-in did not match the sign-in this browser started (an old, copied or forged link). Nobody was signed in. Start again from the sign-in page.',
  },
  expired_attempt: {
    status: 400,
    title: 'This sign-in took too long',
    text: 'More than ten minutes passed between leaving powerdeck and coming back from your company sign-in. Nobody was signed in. Start again from the sign-in page.',
  },
  idp_error: {
    status: 400,
    title: 'Your company sign-in refused',
    text: 'Your company sign-in service did not let this sign-in through (cancelled, or refused by the service). Nobody was signed in. Start again, or ask your administrator.',
  },
  id_token_invalid: {
    status: 400,
    title: 'Your identity could not be verified',
    text: 'The identity token from your company sign-in service failed its checks (expired, altered, or not meant for powerdeck). Nobody was signed in. Start again; if it keeps failing, tell your administrator.',
  },
  idp_unreachable: {
    status: 502,
    title: 'Your company sign-in cannot be reached',
    text: 'powerdeck could not reach your company sign-in service. Try again in a moment; if it keeps failing, tell your administrator.',
  },
};

/** A small self-contained page (no script, no style: the CSP allows neither inline). */
function refusalPage(reply: FastifyReply, refusal: OidcRefusal): FastifyReply {
  const page = REFUSAL_PAGES[refusal];
  return reply
    .code(page.status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${page.title} - powerdeck</title></head>` +
        `<body><main><h1>${page.title}</h1><p>${page.text}</p><p><a href="/sign-in">Back to sign-in</a></p></main></body></html>`,
    );
}

/**
 * Company sign-in (docs/security.md, Company sign-in): `GET /api/session/oidc?region=` sends the
 * browser to the IdP with a fresh attempt sealed in a cookie; `GET /api/session/oidc/callback`
 * checks the IdP's answer against it, starts the session and sends the browser to `/`, or shows
 * a page saying why nobody was signed in.
 */
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

  app.get('/api/session/oidc', async (request, reply) => {
    const { region } = parseInput(StartQuerySchema, request.query, 'query');
    let started;
    try {
      started = await oidc.start(region);
    } catch (error) {
      if (!(error instanceof OidcSignInError)) throw error;
      request.log.warn({ refusal: error.refusal, reason: error.reason }, 'company sign-in refused');
      return refusalPage(reply, error.refusal);
    }
    reply.setCookie(
      attempt.name,
      box.seal(JSON.stringify(started.transaction), TRANSACTION_AAD),
      attempt.options,
    );
    return reply.redirect(started.url.toString(), 303);
  });

  app.get(OIDC_CALLBACK_PATH, async (request: FastifyRequest, reply) => {
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
      request.log.warn(
        { refusal: error.refusal, reason: error.reason, why: error.message },
        'company sign-in refused',
      );
      return refusalPage(reply, error.refusal);
    }
  });
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
