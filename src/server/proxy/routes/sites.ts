import type { FastifyInstance } from 'fastify';
import { SiteBindingRequestSchema } from '../../../domain/device.ts';
import { parseInput } from '../../http/parse.ts';
import { answerChange, mirrorPath, type ProxyDeps } from '../allowlist.ts';
import { passThrough } from '../pass-through.ts';

/** Site binding (spec 4, 5 rule 5): list, bind and unbind, mirrored as `/api/sites`. */
export function siteRoutes(app: FastifyInstance, deps: ProxyDeps): void {
  const { sessions, upstream, statuses, sites } = deps;

  mirrorPath(app, '/api/sites', {
    GET: async (request, reply) => {
      const session = await sessions.require(request);
      return passThrough(reply, await upstream.sites(session, request.id));
    },
    POST: async (request, reply) => {
      const session = await sessions.require(request, 'administer');
      const { siteId } = parseInput(SiteBindingRequestSchema, request.body, 'body');
      return answerChange(
        deps,
        request,
        reply,
        {
          kind: 'bind',
          session,
          siteId,
          send: () => upstream.bind(session, siteId, request.id),
        },
        // The site's devices now belong to the client: ledger entries learn their site anew.
        () => sites.forget(session),
      );
    },
    DELETE: async (request, reply) => {
      const session = await sessions.require(request, 'administer');
      const { siteId } = parseInput(SiteBindingRequestSchema, request.body, 'body');
      return answerChange(
        deps,
        request,
        reply,
        {
          kind: 'unbind',
          session,
          siteId,
          send: () => upstream.unbind(session, siteId, request.id),
        },
        // The client may no longer read that site's devices: kept and reused status answers,
        // those in flight, and the kept site list go.
        () => {
          statuses.forgetClient(session);
          sites.forget(session);
        },
      );
    },
  });
}
