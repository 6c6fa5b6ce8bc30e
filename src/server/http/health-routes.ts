import type { FastifyInstance } from 'fastify';
import type { Region } from '../../domain/token.ts';
import type { DatabaseHandle } from '../../infra/database.ts';
import { ProblemError } from './problem.ts';

/**
 * `GET /healthz`: the process answers (liveness). `GET /readyz`: the database is reachable and
 * the circuits per region and the fleet job queue are reported (readiness, for a load balancer:
 * a queue still starting does not make the BFF unready, since only fleet job changes wait for
 * it). Neither touches the upstream.
 */
export async function healthRoutes(
  app: FastifyInstance,
  options: {
    database: DatabaseHandle | undefined;
    /** The upstream circuit of each region: `closed`, `open` or `halfOpen`. */
    circuits: () => Record<Region, string>;
    /** The fleet job queue: `starting`, `ready`, `stopped`, or `none` without a database. */
    fleetJobs: () => string;
  },
): Promise<void> {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    const circuits = options.circuits();
    const fleetJobs = options.fleetJobs();
    if (!options.database) return { status: 'ready', database: 'none', circuits, fleetJobs };
    try {
      await options.database.db.execute('select 1');
    } catch {
      throw new ProblemError(503, 'not_ready', 'The database is not reachable.');
    }
    return { status: 'ready', database: options.database.driver, circuits, fleetJobs };
  });
}
