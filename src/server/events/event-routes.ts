import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { declaredRoutes, problemResponse } from '../http/route-declarations.ts';
import { requirePerson, sessionOf, signedInOf } from '../session/session-hooks.ts';
import type { Sessions } from '../session/sessions.ts';
import { retryHintMs, type AccountEvents } from './account-events.ts';
import { accountOf, personOf } from '#domain/account.ts';

/** A position the browser may resume from: an event ID this server gave (15 digits fit a double). */
const EVENT_POSITION = /^(0|[1-9][0-9]{0,14})$/;

/**
 * `?lastEventId=`: the position a page resumes from when it opens a new stream itself (after the
 * browser gave up reconnecting); the browser's own reconnection sends `Last-Event-ID` instead.
 */
const EventsQuerySchema = z.strictObject({ lastEventId: z.string().max(32).optional() });

/**
 * `GET /api/events` (docs/architecture.md, Live updates): the server-sent events of the signed-in
 * account and person, `text/event-stream`, resumable with `Last-Event-ID`. Written here rather
 * than through a plugin so the response goes through Fastify's reply (the security headers'
 * `onSend` hook, the request log) with a body of our own that bounds what a slow reader holds
 * (`event-stream.ts`). A GET, so no CSRF proof is needed, but another site's request is refused
 * like every `/api` call (`Sec-Fetch-Site`); the cookie is `SameSite=Strict`.
 */
export async function eventRoutes(
  app: FastifyInstance,
  options: { sessions: Sessions; events: AccountEvents },
): Promise<void> {
  const { sessions, events } = options;
  declaredRoutes(app).get(
    '/api/events',
    {
      // A HEAD would open a stream nobody reads.
      exposeHeadRoute: false,
      preValidation: requirePerson(sessions, 'read'),
      schema: {
        tags: ['live updates'],
        summary: 'The live updates of the signed-in account and person (server-sent events)',
        querystring: EventsQuerySchema,
        response: {
          200: {
            description:
              'An endless `text/event-stream`: each event names what changed (`id` is its position, `event` its kind, `data` its JSON), with heartbeats between; resumable with `Last-Event-ID`.',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          400: problemResponse('The query failed its schema (`invalid_request`).'),
          401: problemResponse('Not signed in (`not_signed_in`).'),
          403: problemResponse(
            'Another site asked (`csrf`), or the role may not read (`forbidden_role`).',
          ),
          503: problemResponse('No vendor connection for the region (`no_connection`).'),
        },
      },
      // After the security headers' hook: proxies must neither cache nor compress the stream
      // (compressing buffers it), and nginx must not buffer it.
      onSend: (_request, reply, payload, done) => {
        reply.header('cache-control', 'no-store, no-transform');
        reply.header('x-accel-buffering', 'no');
        done(null, payload);
      },
    },
    async (request, reply) => {
      const signedIn = signedInOf(request);
      const session = sessionOf(request);
      const query = request.query;
      const header = request.headers['last-event-id'];
      const position = typeof header === 'string' && header !== '' ? header : query.lastEventId;
      const stream = events.open({
        account: accountOf(session),
        person: personOf(signedIn),
        session: signedIn,
        lastEventId:
          position === undefined
            ? undefined
            : EVENT_POSITION.test(position)
              ? Number(position)
              : 'invalid',
        retryMs: retryHintMs(),
      });
      reply.header('content-type', 'text/event-stream; charset=utf-8');
      // A stream, never serialized: the reply as Fastify types it, not as the declared string.
      return (reply as FastifyReply).send(stream.body);
    },
  );
  refuseOtherMethods(app, '/api/events', new Set(['GET']));
}
