import type { FastifyInstance } from 'fastify';
import { buildOverview, OverviewQuerySchema, OverviewSchema } from '#domain/overview.ts';
import { REGION_NAMES, type Region } from '#domain/token.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { ProblemError } from '../http/problem.ts';
import {
  COMMON_PROBLEMS,
  problemResponse,
  productRoutes,
  requireSession,
  sessionOf,
  tokenUse,
  type ProductApiDeps,
} from './declare.ts';
import { overviewSince, type OverviewSource } from './overview-source.ts';

/**
 * A session acts in one region: asking for `asked` another is 409 `other_region`, saying what to
 * see (`what`) and where to sign in.
 *
 * @throws ProblemError 409 `other_region`.
 */
export function refuseOtherRegion(signedIn: Region, asked: Region | undefined, what: string): void {
  if (asked === undefined || asked === signedIn) return;
  throw new ProblemError(
    409,
    'other_region',
    `You are signed in to ${REGION_NAMES[signedIn]}. To see the ${REGION_NAMES[asked]} ${what}, sign out and sign in to ${REGION_NAMES[asked]}.`,
    { title: 'Signed in to another region' },
  );
}

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
      config: tokenUse('read', 'account'),
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
      refuseOtherRegion(session.region, request.query.region, 'overview');
      const nowMs = now();
      const facts = await overview.read(session, overviewSince(nowMs));
      return buildOverview(facts, nowMs, session.region);
    },
  );
  refuseOtherMethods(app, '/api/overview', new Set(['GET', 'HEAD']));
}
