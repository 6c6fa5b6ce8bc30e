import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  SessionInfoSchema,
  SignInModeSchema,
  SignInRequestSchema,
  SignOutAnswerSchema,
  type SessionInfo,
  type SignInMode,
  type SignOutAnswer,
} from '#domain/session.ts';
import type { DeviceBudgets } from '#domain/device-budget.ts';
import { isProblem, notSignedIn } from '../http/problem.ts';
import { declaredRoutes, problemResponse } from '../http/route-declarations.ts';
import {
  FailedSignInLimiter,
  perIpSignInLimit,
  type SignInLimitOptions,
} from './sign-in-limits.ts';
import type { OidcClient } from './oidc.ts';
import { takeSignOutHint } from './oidc-routes.ts';
import type { SecretBox } from './secret-box.ts';
import { clearSessionCookie, type SessionCookie } from './session-cookie.ts';
import { sessionInfo, type Sessions } from './sessions.ts';

/**
 * `/api/session` (docs/architecture.md, BFF surface): POST signs in, GET says who is signed in,
 * DELETE signs out. CSRF and Origin checks apply to POST and DELETE like every non-GET `/api` call.
 * `GET /api/session/mode` tells the sign-in page which way operators sign in. With company
 * sign-in (`oidc`), DELETE answers 200 with the IdP's logout URL and its `state` when the IdP
 * offers one (OpenID Connect RP-Initiated Logout 1.0), for the browser to end the IdP's session
 * too, whether or not a powerdeck session was open: the refusal page of a sign-in without a role
 * signs the person out of their company account the same way (its ID token, kept sealed in a
 * cookie by the refusal, is the hint).
 */
export async function sessionRoutes(
  app: FastifyInstance,
  options: {
    sessions: Sessions;
    cookie: SessionCookie;
    limits: SignInLimitOptions;
    now: () => number;
    oidc?: OidcClient | undefined;
    /** With `oidc`: opens the sign-out hint a refused sign-in left. */
    box: SecretBox;
    /** Each region's budget of upstream calls per device, said in the session's answer. */
    deviceBudgets?: DeviceBudgets | undefined;
  },
): Promise<void> {
  const { sessions, cookie, deviceBudgets } = options;
  /** The session's answer with its region's device budget, for the pages that word it. */
  const withBudget = (info: SessionInfo): SessionInfo => {
    const budget = deviceBudgets?.[info.region];
    if (!budget) return info;
    return {
      ...info,
      deviceCallBudget: { limit: budget.limit, windowSeconds: Math.round(budget.windowMs / 1000) },
    };
  };
  const perIp = await perIpSignInLimit(app, options.limits);
  const failures = new FailedSignInLimiter(options.now, options.limits.failedPerClient);

  const routes = declaredRoutes(app);
  const tags = ['session'];

  routes.post(
    '/api/session',
    {
      onRequest: perIp,
      schema: {
        tags,
        summary: "Sign in with the partner's client ID and secret (the credentials form)",
        security: [],
        body: SignInRequestSchema,
        response: {
          200: SessionInfoSchema.describe('Signed in: the session cookie is set'),
          400: problemResponse('The body failed its schema (`invalid_request`).'),
          401: problemResponse(
            "The region's token endpoint refused the client ID or secret (`invalid_credentials`).",
          ),
          403: problemResponse(
            'CSRF proof missing (`csrf`), or company sign-in is configured and the credentials form is off (`credentials_sign_in_off`).',
          ),
          429: problemResponse(
            'Too many sign-ins from this address, or too many refused for this client (`too_many_sign_ins`); `Retry-After` says when to try again.',
          ),
          502: problemResponse('The token endpoint failed or answered what could not be read.'),
          503: problemResponse('The token endpoint could not be reached.'),
          504: problemResponse('The token endpoint did not answer in time.'),
        },
      },
    },
    async (request, reply) => {
      const input = request.body;
      const clientKey = `${input.region} ${input.clientId}`;
      failures.check(clientKey);
      try {
        return withBudget(await sessions.signIn(request, reply, input));
      } catch (error) {
        if (isProblem(error, 'invalid_credentials')) failures.recordFailure(clientKey);
        throw error;
      }
    },
  );

  routes.get(
    '/api/session',
    {
      schema: {
        tags,
        summary: 'Who is signed in',
        response: {
          200: SessionInfoSchema,
          401: problemResponse('Nobody is signed in (`not_signed_in`).'),
        },
      },
    },
    async (request, reply) => {
      const session = await sessions.current(request);
      if (!session) {
        if (request.cookies[cookie.name] !== undefined) clearSessionCookie(reply, cookie);
        throw notSignedIn();
      }
      return withBudget(sessionInfo(session));
    },
  );

  routes.get(
    '/api/session/mode',
    {
      schema: {
        tags,
        summary: 'How operators sign in here: the credentials form or their company account',
        security: [],
        response: { 200: SignInModeSchema },
      },
    },
    async () => ({ mode: options.oidc ? 'oidc' : 'credentials' }) satisfies SignInMode,
  );

  routes.delete(
    '/api/session',
    {
      schema: {
        tags,
        summary: 'Sign out',
        response: {
          200: SignOutAnswerSchema.describe(
            "Company sign-in: signed out of powerdeck; the IdP's logout URL and its state, when the IdP offers one",
          ),
          204: z.null().describe('Signed out (the credentials form)'),
          403: problemResponse('CSRF proof missing (`csrf`).'),
        },
      },
    },
    async (request, reply) => {
      const ended = await sessions.signOut(request, reply);
      // No body: the reply as Fastify types it, since the declared 204 has no payload to pass.
      if (!options.oidc) return (reply as FastifyReply).code(204).send();
      const refusedHint = takeSignOutHint(request, reply, options.box, cookie);
      const logout = await options.oidc.logoutUrl(ended?.idToken ?? refusedHint);
      return reply
        .code(200)
        .send(
          (logout ? { logoutUrl: logout.url, state: logout.state } : {}) satisfies SignOutAnswer,
        );
    },
  );
}
