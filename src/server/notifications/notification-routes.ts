import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  MarkNotificationsReadSchema,
  NotificationFactsSchema,
  NotificationQuerySchema,
  type MarkNotificationsReadAnswer,
  type NotificationPage,
} from '../../domain/notifications.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { parseInput } from '../http/parse.ts';
import { ProblemError, notSignedIn } from '../http/problem.ts';
import type { Sessions } from '../session/sessions.ts';
import { personOf, type Account, type Person } from '../events/people.ts';
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
    notifications: Notifications | undefined;
    testRoutes?: boolean | undefined;
  },
): Promise<void> {
  const { sessions } = options;
  const available = (): Notifications => {
    if (options.notifications) return options.notifications;
    throw new ProblemError(
      503,
      'notifications_unavailable',
      'This server runs without a database, so it keeps no notifications. The batch, fleet job and device pages still show every outcome.',
    );
  };
  /** The signed-in person and their account (for a company sign-in, the region's connection). */
  const reader = async (request: FastifyRequest): Promise<{ account: Account; person: Person }> => {
    const signedIn = await sessions.current(request);
    if (!signedIn) throw notSignedIn();
    const session = await sessions.require(request, 'read');
    return {
      account: { region: session.region, clientId: session.clientId },
      person: personOf(signedIn),
    };
  };

  app.get('/api/notifications', async (request) => {
    const { account, person } = await reader(request);
    const query = parseInput(NotificationQuerySchema, request.query, 'query');
    return (await available().page(account, person, query)) satisfies NotificationPage;
  });
  refuseOtherMethods(app, '/api/notifications', new Set(['GET', 'HEAD']));

  app.post('/api/notifications/read', async (request) => {
    const { account, person } = await reader(request);
    const body = parseInput(MarkNotificationsReadSchema, request.body, 'body');
    return (await available().markRead(
      account,
      person,
      body,
    )) satisfies MarkNotificationsReadAnswer;
  });
  refuseOtherMethods(app, '/api/notifications/read', new Set(['POST']));

  if (!options.testRoutes) return;
  app.post('/api/test/notifications', async (request, reply) => {
    const { account, person } = await reader(request);
    const facts = parseInput(NotificationFactsSchema, request.body, 'body');
    const signedIn = await sessions.current(request);
    const me = { person, name: signedIn?.operator?.name ?? signedIn?.operatorName };
    const input: NotifyInput =
      facts.kind === 'siteUnbound'
        ? { account, ...facts, unboundBy: me }
        : facts.kind === 'queuedChangeWithdrawn'
          ? { account, ...facts, madeBy: person, withdrawnBy: undefined }
          : { account, ...facts, madeBy: person };
    const id = await available().notify(input);
    return reply.code(201).send({ id: id ?? null });
  });
}
