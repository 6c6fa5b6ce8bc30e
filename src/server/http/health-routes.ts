import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { RegionSchema, type Region } from '#domain/token.ts';
import type { DatabaseHandle } from '#infra/database.ts';
import { ProblemError } from './problem.ts';
import { declaredRoutes, problemResponse } from './route-declarations.ts';

const ReadinessSchema = z.object({
  status: z.literal('ready'),
  database: z.enum(['pglite', 'postgres']),
  circuits: z
    .partialRecord(RegionSchema, z.string())
    .describe("Each region's upstream circuit: `closed`, `open` or `halfOpen`"),
  fleetJobs: z.enum(['starting', 'ready', 'stopped']).describe('The fleet job queue'),
});

/**
 * `GET /healthz`: the process answers (liveness). `GET /readyz`: the database is reachable and
 * the circuits per region and the fleet job queue are reported (readiness, for a load balancer:
 * a queue still starting does not make the BFF unready, since only fleet job changes wait for
 * it). Neither touches the upstream.
 */
export async function healthRoutes(
  app: FastifyInstance,
  options: {
    database: DatabaseHandle;
    /** The upstream circuit of each region: `closed`, `open` or `halfOpen`. */
    circuits: () => Record<Region, string>;
    /** The fleet job queue: `starting`, `ready` or `stopped`. */
    fleetJobs: () => 'starting' | 'ready' | 'stopped';
  },
): Promise<void> {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });

  const routes = declaredRoutes(app);
  const tags = ['health'];
  routes.get(
    '/healthz',
    {
      schema: {
        tags,
        summary: 'The process answers (liveness)',
        security: [],
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  routes.get(
    '/readyz',
    {
      schema: {
        tags,
        summary: 'The database answers; the circuits and the fleet job queue (readiness)',
        security: [],
        response: {
          200: ReadinessSchema,
          503: problemResponse('The database is not reachable (`not_ready`).'),
        },
      },
    },
    async () => {
      const circuits = options.circuits();
      const fleetJobs = options.fleetJobs();
      try {
        await options.database.db.execute('select 1');
      } catch {
        throw new ProblemError(503, 'not_ready', 'The database is not reachable.');
      }
      return { status: 'ready' as const, database: options.database.driver, circuits, fleetJobs };
    },
  );
}
