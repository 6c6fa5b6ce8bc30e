import type { FastifyInstance } from 'fastify';
import { buildOverview, OverviewQuerySchema, OverviewSchema } from '#domain/overview.ts';
import { REGION_NAMES } from '#domain/token.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { ProblemError } from '../http/problem.ts';
import {
  COMMON_PROBLEMS,
  problemResponse,
  productRoutes,
  requireSession,
  sessionOf,
  type ProductApiDeps,
} from './declare.ts';
import { overviewSince, type OverviewSource } from './overview-source.ts';

/**
 * `GET /api/overview?region=` (docs/architecture.md, Overview): no vendor call per device. A
 * session acts in one region, so another `region` is 409 `other_region`.
 */
export async function overviewRoutes(
  app: FastifyInstance,
  deps: Pick<ProductApiDeps, 'sessions'> & {
    overview: OverviewSource;
    /** Epoch ms. */
    now: () => number;
  },
): Promise<void> {
  const { sessions, now, overview } = deps;
  productRoutes(app).get(
    '/api/overview',
    {
      preValidation: requireSession(sessions),
      schema: {
        tags: ['overview'],
        summary:
          'What executes now, starts soon, failed or was cancelled lately, batches and fleet jobs under way, sites and devices offline or faulted',
        querystring: OverviewQuerySchema,
        response: {
          200: OverviewSchema,
          409: problemResponse('Another region than the signed-in one (`other_region`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const asked = request.query.region;
      if (asked !== undefined && asked !== session.region)
        throw new ProblemError(
          409,
          'other_region',
          `You are signed in to ${REGION_NAMES[session.region]}. To see the ${REGION_NAMES[asked]} overview, sign out and sign in to ${REGION_NAMES[asked]}.`,
          { title: 'Signed in to another region' },
        );
      const nowMs = now();
      const facts = await overview.read(session, overviewSince(nowMs));
      return buildOverview(facts, nowMs, session.region);
    },
  );
  refuseOtherMethods(app, '/api/overview', new Set(['GET', 'HEAD']));
}
