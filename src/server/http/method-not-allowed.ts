import type { FastifyInstance } from 'fastify';
import { ProblemError } from './problem.ts';

/** So a known path never falls through to the 404 handler; `unrouted` methods answer 404 (retired). */
export function refuseOtherMethods(
  app: FastifyInstance,
  path: string,
  methods: ReadonlySet<string>,
  unrouted: readonly string[] = [],
): void {
  const others = app.supportedMethods.filter((m) => !methods.has(m) && !unrouted.includes(m));
  const allow = [...methods].join(', ');
  app.route({
    method: [...others],
    url: path,
    schema: { hide: true },
    handler: async () => {
      throw new ProblemError(405, 'method_not_allowed', `This path accepts ${allow} only.`, {
        headers: { allow },
      });
    },
  });
}
