import type { FastifyInstance } from 'fastify';
import { SiteBindingRequestSchema, type SiteList } from '../../domain/device.ts';
import { parse } from '../http/parse.ts';
import { authenticate, type RegionContext } from '../http/region-context.ts';

/**
 * Site binding (spec 2.7, 4, 5 rule 5; docs/architecture.md, Upstream contract: Sites): `GET
 * /sites` lists the bound sites in bind order, `POST /sites` binds (201, or 200 when bound
 * already), `DELETE /sites` unbinds (204, 404 when not bound).
 */
export async function siteRoutes(app: FastifyInstance, context: RegionContext): Promise<void> {
  app.get('/sites', async (request): Promise<SiteList> => {
    const client = authenticate(context, request);
    return { sites: await context.state.listSites(client) };
  });

  app.post('/sites', async (request, reply) => {
    const client = authenticate(context, request);
    const { siteId } = parse(SiteBindingRequestSchema, request.body, 'body');
    const { site, created } = await context.state.bindSite(client, siteId);
    return reply.code(created ? 201 : 200).send(site);
  });

  app.delete('/sites', async (request, reply) => {
    const client = authenticate(context, request);
    const { siteId } = parse(SiteBindingRequestSchema, request.body, 'body');
    await context.state.unbindSite(client, siteId);
    return reply.code(204).send();
  });
}
