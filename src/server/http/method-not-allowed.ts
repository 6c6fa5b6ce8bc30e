import type { FastifyInstance } from 'fastify';
import { ProblemError } from './problem.ts';

/**
 * Answers 405 `method_not_allowed` with `Allow` to every method of `path` but `methods` (list
 * GET with HEAD when both are served), so a known path never falls through to the 404 handler;
 * but for `unrouted`, methods that are to answer 404 as no route (a retired route).
 */
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
