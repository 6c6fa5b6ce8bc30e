import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  MarkNotificationsReadAnswerSchema,
  MarkNotificationsReadSchema,
  NotificationFactsSchema,
  NotificationPageSchema,
  NotificationQuerySchema,
  type MarkNotificationsReadAnswer,
  type NotificationPage,
} from '#domain/notifications.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { declaredRoutes, problemResponse } from '../http/route-declarations.ts';
import { requirePerson, sessionOf, signedInOf } from '../session/session-hooks.ts';
import type { Sessions } from '../session/sessions.ts';
import type { Role } from '#domain/roles.ts';
import { accountOf, authorOf, personOf, type Account, type Person } from '#domain/account.ts';
import type { NotifyInput } from './notification-rules.ts';
import type { Notifications } from './notifications.ts';

/**
 * The notification inbox of the signed-in person (docs/architecture.md, Live updates):
 * `GET /api/notifications` (newest first, paged, with the unread count) and
 * `POST /api/notifications/read` (some by ID, or all). Any role may read and mark its own.
 *
 * With `testRoutes` (the browser tests' stack, `TEST_ROUTES=1`, loopback only) also
 * `POST /api/test/notifications`: notifies as if the signed-in person had done what the body's
 * facts say, so a test can see a notification reach other pages without the modules that will
 * call `notify`.
 */
export async function notificationRoutes(
  app: FastifyInstance,
  options: {
    sessions: Sessions;
    notifications: Notifications;
    testRoutes?: boolean | undefined;
  },
): Promise<void> {
  const { sessions, notifications } = options;
  /** The signed-in person and their account (for a company sign-in, the region's connection). */
  const reader = (request: FastifyRequest): { account: Account; person: Person; role: Role } => {
    const session = sessionOf(request);
    return {
      account: accountOf(session),
      person: personOf(signedInOf(request)),
      // A credentials-form sign-in may do everything (docs/security.md, Roles).
      role: session.operator?.role ?? 'admin',
    };
  };
  const routes = declaredRoutes(app);
  const tags = ['notifications'];
  const problems = {
    401: problemResponse('Not signed in (`not_signed_in`).'),
    403: problemResponse(
      'CSRF proof missing (`csrf`), or the role may not read (`forbidden_role`).',
    ),
    503: problemResponse('No vendor connection for the region (`no_connection`).'),
  };

  routes.get(
    '/api/notifications',
    {
      preValidation: requirePerson(sessions, 'read'),
      schema: {
        tags,
        summary: "The signed-in person's notifications, newest first, with the unread count",
        querystring: NotificationQuerySchema,
        response: {
          200: NotificationPageSchema,
          400: problemResponse('The query failed its schema (`invalid_request`).'),
          ...problems,
        },
      },
    },
    async (request) => {
      const { account, person, role } = reader(request);
      return (await notifications.page(
        account,
        person,
        request.query,
        role,
      )) satisfies NotificationPage;
    },
  );
  refuseOtherMethods(app, '/api/notifications', new Set(['GET', 'HEAD']));

  routes.post(
    '/api/notifications/read',
    {
      preValidation: requirePerson(sessions, 'read'),
      schema: {
        tags,
        summary: 'Mark some notifications read, by ID, or all of them',
        body: MarkNotificationsReadSchema,
        response: {
          200: MarkNotificationsReadAnswerSchema,
          400: problemResponse('The body failed its schema (`invalid_request`).'),
          ...problems,
        },
      },
    },
    async (request) => {
      const { account, person, role } = reader(request);
      return (await notifications.markRead(
        account,
        person,
        request.body,
        role,
      )) satisfies MarkNotificationsReadAnswer;
    },
  );
  refuseOtherMethods(app, '/api/notifications/read', new Set(['POST']));

  if (!options.testRoutes) return;
  routes.post(
    '/api/test/notifications',
    {
      preValidation: requirePerson(sessions, 'read'),
      schema: {
        tags: ['test'],
        summary:
          'Browser tests only (`TEST_ROUTES=1`, loopback): notify as if the signed-in person had done what the facts say',
        body: NotificationFactsSchema,
        response: {
          201: z
            .object({ id: z.string().nullable() })
            .describe('The notification made, or null when nobody is to be told'),
          400: problemResponse('The body failed its schema (`invalid_request`).'),
          ...problems,
        },
      },
    },
    async (request, reply) => {
      const { account, person } = reader(request);
      const facts = request.body;
      const me = authorOf(signedInOf(request));
      const input: NotifyInput =
        facts.kind === 'siteUnbound'
          ? { account, ...facts, unboundBy: me }
          : facts.kind === 'queuedChangeWithdrawn'
            ? { account, ...facts, madeBy: person, withdrawnBy: undefined }
            : facts.kind === 'queuedChangeFailed'
              ? { account, ...facts, madeBy: me }
              : facts.kind === 'webhookEndpointDisabled'
                ? { account, ...facts }
                : { account, ...facts, madeBy: person };
      const id = await notifications.notify(input);
      return reply.code(201).send({ id: id ?? null });
    },
  );
}
