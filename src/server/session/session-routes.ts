import type { FastifyInstance } from 'fastify';
import { SignInRequestSchema, type SignInMode, type SignOutAnswer } from '../../domain/session.ts';
import { parseInput } from '../http/parse.ts';
import { isProblem, notSignedIn } from '../http/problem.ts';
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
    box?: SecretBox | undefined;
  },
): Promise<void> {
  const { sessions, cookie } = options;
  const perIp = await perIpSignInLimit(app, options.limits);
  const failures = new FailedSignInLimiter(options.now, options.limits.failedPerClient);

  app.post('/api/session', { onRequest: perIp }, async (request, reply) => {
    const input = parseInput(SignInRequestSchema, request.body, 'body');
    const clientKey = `${input.region} ${input.clientId}`;
    failures.check(clientKey);
    try {
      return await sessions.signIn(request, reply, input);
    } catch (error) {
      if (isProblem(error, 'invalid_credentials')) failures.recordFailure(clientKey);
      throw error;
    }
  });

  app.get('/api/session', async (request, reply) => {
    const session = await sessions.current(request);
    if (!session) {
      if (request.cookies[cookie.name] !== undefined) clearSessionCookie(reply, cookie);
      throw notSignedIn();
    }
    return sessionInfo(session);
  });

  app.get('/api/session/mode', async () => {
    return { mode: options.oidc ? 'oidc' : 'credentials' } satisfies SignInMode;
  });

  app.delete('/api/session', async (request, reply) => {
    const ended = await sessions.signOut(request, reply);
    if (!options.oidc) return reply.code(204).send();
    const refusedHint = options.box
      ? takeSignOutHint(request, reply, options.box, cookie)
      : undefined;
    const logout = await options.oidc.logoutUrl(ended?.idToken ?? refusedHint);
    return reply
      .code(200)
      .send((logout ? { logoutUrl: logout.url, state: logout.state } : {}) satisfies SignOutAnswer);
  });
}
