import type { FastifyInstance } from 'fastify';
import { SignInRequestSchema } from '../../domain/session.ts';
import { parseInput } from '../http/parse.ts';
import { notSignedIn } from '../http/problem.ts';
import { clearSessionCookie, type SessionCookie } from './session-cookie.ts';
import { sessionInfo, type Sessions } from './sessions.ts';

/**
 * `/api/session` (DESIGN.md 4): POST signs in, GET says who is signed in, DELETE signs out.
 * CSRF and Origin checks apply to POST and DELETE like every non-GET `/api` call.
 */
export async function sessionRoutes(
  app: FastifyInstance,
  options: { sessions: Sessions; cookie: SessionCookie },
): Promise<void> {
  const { sessions, cookie } = options;

  app.post('/api/session', async (request, reply) => {
    const input = parseInput(SignInRequestSchema, request.body, 'body');
    return sessions.signIn(request, reply, input);
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
