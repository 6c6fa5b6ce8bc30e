import type { FastifyInstance } from 'fastify';
import { SignInRequestSchema } from '../../domain/session.ts';
import { parseInput } from '../http/parse.ts';
import { isProblem, notSignedIn } from '../http/problem.ts';
import {
  FailedSignInLimiter,
  perIpSignInLimit,
  type SignInLimitOptions,
} from './sign-in-limits.ts';
import { clearSessionCookie, type SessionCookie } from './session-cookie.ts';
import { sessionInfo, type Sessions } from './sessions.ts';

/**
 * `/api/session` (docs/architecture.md, BFF surface): POST signs in, GET says who is signed in,
 * DELETE signs out. CSRF and Origin checks apply to POST and DELETE like every non-GET `/api` call.
 */
export async function sessionRoutes(
  app: FastifyInstance,
  options: {
    sessions: Sessions;
    cookie: SessionCookie;
    limits: SignInLimitOptions;
    now: () => number;
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

  app.delete('/api/session', async (request, reply) => {
    await sessions.signOut(request, reply);
    return reply.code(204).send();
  });
}
