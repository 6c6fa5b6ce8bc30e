import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parse } from '../http/parse.ts';
import { authenticate, type RegionContext } from '../http/region-context.ts';
import {
  DeviceIdSchema,
  DeviceListQuerySchema,
  SiteBindingRequestSchema,
  SiteDetailQuerySchema,
  SiteIdSchema,
  SiteListQuerySchema,
  type BindingAnswer,
  type Device,
  type DeviceList,
  type Site,
  type SiteList,
} from '../vendor/schemas.ts';

const SiteParamsSchema = z.object({ siteId: SiteIdSchema });
const DeviceParamsSchema = z.object({ deviceId: DeviceIdSchema });

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Sites and devices (docs/upstream.md, Sites, Paging): the paged lists with their filters, the
 * details, binding (`POST /sites`) and unbinding in both forms, the vendor's
 * `DELETE /sites/{siteId}` and the spec's `DELETE /sites` with a JSON body (docs/upstream.md,
 * Decisions).
 */
export async function siteRoutes(app: FastifyInstance, context: RegionContext): Promise<void> {
  const { state } = context;
  const bindingAnswer = (message: string, siteId: string): BindingAnswer => ({
    message,
    siteId,
    timestamp: iso(state.nowMs()),
  });

  app.get('/sites', async (request): Promise<SiteList> => {
    const client = authenticate(context, request);
    return state.listSites(client, parse(SiteListQuerySchema, request.query, 'query'));
  });

  app.get('/sites/:siteId', async (request): Promise<Site> => {
    const client = authenticate(context, request);
    const { siteId } = parse(SiteParamsSchema, request.params, 'path');
    const { includeDevices } = parse(SiteDetailQuerySchema, request.query, 'query');
    return state.siteDetails(client, siteId, includeDevices);
  });

  app.post('/sites', async (request): Promise<BindingAnswer> => {
    const client = authenticate(context, request);
    const { siteId } = parse(SiteBindingRequestSchema, request.body, 'body');
    await state.bindSite(client, siteId);
    return bindingAnswer('onboarding success', siteId);
  });

  /** Both forms of the unbind: the site ID from the path or from the body, the same answer. */
  const unbind =
    (siteIdOf: (request: FastifyRequest) => string) =>
    async (request: FastifyRequest): Promise<BindingAnswer> => {
      const client = authenticate(context, request);
      const siteId = siteIdOf(request);
      await state.unbindSite(client, siteId);
      return bindingAnswer('offboarding success', siteId);
    };
  app.delete(
    '/sites/:siteId',
    unbind((request) => parse(SiteParamsSchema, request.params, 'path').siteId),
  );
  app.delete(
    '/sites',
    unbind((request) => parse(SiteBindingRequestSchema, request.body, 'body').siteId),
  );

  app.get('/devices', async (request): Promise<DeviceList> => {
    const client = authenticate(context, request);
    return state.listDevices(client, parse(DeviceListQuerySchema, request.query, 'query'));
  });

  app.get('/devices/:deviceId', async (request): Promise<Device> => {
    const client = authenticate(context, request);
    const { deviceId } = parse(DeviceParamsSchema, request.params, 'path');
    return state.deviceDetails(client, deviceId);
  });
}
