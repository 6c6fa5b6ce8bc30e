import { IdempotencyKeyHeadersSchema } from '../http/idempotency-key.ts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SiteBindingRequestSchema, SiteListSchema, SiteSchema } from '#domain/device.ts';
import { SiteIdSchema } from '#domain/ids.ts';
import { SiteTimeZoneRequestSchema } from '#domain/site-clock.ts';
import { accountOf } from '#domain/account.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { ProblemError } from '../http/problem.ts';
import type { Session } from '../session/session-store.ts';
import type { CallResult } from '../upstream/upstream-answers.ts';
import { answerChange } from './changes.ts';
import {
  COMMON_PROBLEMS,
  problemResponse,
  productRoutes,
  requireSession,
  sessionOf,
  tokenUse,
  type ProductApiDeps,
} from './declare.ts';

const SiteParamsSchema = z.strictObject({ siteId: SiteIdSchema });

/**
 * Sites (docs/decisions/006, section 3): the bound sites with their clocks, bind, unbind, and a
 * site's time zone set or cleared by an administrator (section 6). Binding changes reach the
 * ledger; so does a time zone (kind `siteTimeZone`), so the audit shows who set what.
 */
export function siteRoutes(app: FastifyInstance, deps: ProductApiDeps): void {
  const { sessions, upstream, ledger, sites, zones, now, readModel } = deps;
  const routes = productRoutes(app);

  routes.get(
    '/api/sites',
    {
      config: tokenUse('read', 'account'),
      preValidation: requireSession(sessions, undefined, readModel),
      schema: {
        tags: ['sites'],
        summary: 'The sites bound to the signed-in account, with their devices and clocks',
        response: { 200: SiteListSchema, ...COMMON_PROBLEMS },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      // The read model learns which devices are bound (new ones are read once, soon).
      return readModel.readSites(session, () => upstream.sites(session, { requestId: request.id }));
    },
  );

  routes.post(
    '/api/sites',
    {
      config: tokenUse('administer', 'account'),
      preValidation: requireSession(sessions, 'administer', readModel),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags: ['sites'],
        summary: 'Bind a site by its Plant ID',
        body: SiteBindingRequestSchema,
        response: {
          200: SiteSchema.describe('The site was bound already'),
          201: SiteSchema.describe('The site is bound now'),
          404: problemResponse('No such site (`unknown_or_unbound`).'),
          409: problemResponse('Bound to another partner account (`site_bound_elsewhere`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { siteId } = request.body;
      return answerChange(
        ledger,
        request,
        reply,
        { kind: 'bind', session, siteId, send: () => upstream.bind(session, siteId, request.id) },
        // The site's devices now belong to the client: ledger entries learn their site anew.
        () => sites.forget(session),
      );
    },
  );
  // `DELETE /api/sites` with a body was the old mirror's unbind: it is not a route (404).
  refuseOtherMethods(app, '/api/sites', new Set(['GET', 'HEAD', 'POST']), ['DELETE']);

  routes.delete(
    '/api/sites/:siteId',
    {
      config: tokenUse('administer', 'site'),
      preValidation: requireSession(sessions, 'administer', readModel),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags: ['sites'],
        summary: 'Unbind a site',
        params: SiteParamsSchema,
        response: {
          204: z.null().describe('Unbound'),
          404: problemResponse('Not found, or not bound to this account (`unknown_or_unbound`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { siteId } = request.params;
      return answerChange(
        ledger,
        request,
        reply,
        {
          kind: 'unbind',
          session,
          siteId,
          send: () => upstream.unbind(session, siteId, request.id),
        },
        // The client may no longer read that site's devices: the kept site list goes.
        () => sites.forget(session),
      );
    },
  );
  refuseOtherMethods(app, '/api/sites/:siteId', new Set(['DELETE']));

  /** Sets (`timeZone`) or clears (null) a site's zone and answers the site as now shown. */
  const changeZone = async (
    session: Session,
    siteId: string,
    timeZone: string | null,
    requestId: string,
  ): Promise<CallResult<z.output<typeof SiteSchema>>> => {
    try {
      // Only a bound site: the vendor answers 404 for another.
      await upstream.site(session, siteId, requestId);
      const key = { ...accountOf(session), siteId };
      if (timeZone === null) await zones.clear(key);
      else
        await zones.set(
          key,
          timeZone,
          {
            name:
              session.operator?.name ??
              session.operator?.email ??
              session.operatorName ??
              session.clientId,
            subject: session.operator?.subject,
          },
          now(),
        );
      sites.forget(session);
      return { kind: 'accepted', status: 200, value: await upstream.site(session, siteId) };
    } catch (error) {
      if (error instanceof ProblemError) return { kind: 'refused', problem: error };
      throw error;
    }
  };

  const zoneResponses = {
    200: SiteSchema.describe('The site with its clock as it is now shown'),
    404: problemResponse('Not found, or not bound to this account (`unknown_or_unbound`).'),
    ...COMMON_PROBLEMS,
  };
  routes.put(
    '/api/sites/:siteId/time-zone',
    {
      config: tokenUse('administer', 'site'),
      preValidation: requireSession(sessions, 'administer', readModel),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags: ['sites'],
        summary: "Set a site's time zone (an IANA name, or a fixed offset such as +10:00)",
        params: SiteParamsSchema,
        body: SiteTimeZoneRequestSchema,
        response: zoneResponses,
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { siteId } = request.params;
      const { timeZone } = request.body;
      return answerChange(ledger, request, reply, {
        kind: 'siteTimeZone',
        session,
        siteId,
        timeZone,
        send: () => changeZone(session, siteId, timeZone, request.id),
      });
    },
  );
  routes.delete(
    '/api/sites/:siteId/time-zone',
    {
      config: tokenUse('administer', 'site'),
      preValidation: requireSession(sessions, 'administer', readModel),
      schema: {
        headers: IdempotencyKeyHeadersSchema,
        tags: ['sites'],
        summary: "Clear a site's time zone: it is inferred again from its country and offset",
        params: SiteParamsSchema,
        response: zoneResponses,
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { siteId } = request.params;
      return answerChange(ledger, request, reply, {
        kind: 'siteTimeZone',
        session,
        siteId,
        timeZone: null,
        send: () => changeZone(session, siteId, null, request.id),
      });
    },
  );
  refuseOtherMethods(app, '/api/sites/:siteId/time-zone', new Set(['PUT', 'DELETE']));
}
