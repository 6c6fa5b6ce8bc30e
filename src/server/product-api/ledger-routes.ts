import type { FastifyInstance } from 'fastify';
import { LedgerPageSchema, LedgerQuerySchema, type LedgerPage } from '#domain/ledger.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { toLedgerEntry } from '../ledger/ledger-rows.ts';
import { withUnboundDevices } from './unbound-devices.ts';
import { COMMON_PROBLEMS, productRoutes, tokenUse, type ProductApiDeps } from './declare.ts';

/**
 * `GET /api/ledger` (docs/architecture.md, Ledger): the signed-in client's ledger entries, newest
 * first, filtered by device, batch, site (resolved to the site's devices through the site list),
 * kind, state and creation time. It serves the batch pages and the audit view. Any role reads it,
 * and without the region's vendor connection too (company sign-in: the audit is there before the
 * first connection); only a site filter needs the upstream (the site list). A batch's device
 * commands are found by the read model's reads of its devices (docs/architecture.md, Read model),
 * never by listing the ledger.
 */
export function ledgerRoutes(app: FastifyInstance, deps: ProductApiDeps): void {
  const { sessions, sites, ledger, now, readModel } = deps;
  productRoutes(app).get(
    '/api/ledger',
    {
      config: tokenUse('read', 'account'),
      schema: {
        tags: ['ledger'],
        summary: "The account's recorded changes, newest first",
        querystring: LedgerQuerySchema,
        response: {
          200: LedgerPageSchema,
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const reader = await sessions.requireReader(request);
      const query = request.query;
      const siteDevices = query.siteId
        ? await sites.devicesOf(await sessions.require(request), query.siteId)
        : undefined;
      // A batch's device commands are in its entry as the read model's reads found them.
      const rows = await ledger.store.list(reader, query, siteDevices);
      const nowMs = now();
      const entries = rows.map((row) => toLedgerEntry(row, nowMs));
      // A batch's devices whose site is unbound are no longer followed: final for the batch.
      // (A reader without a vendor connection yet has no client, so no devices.)
      const { region, clientId } = reader;
      if (clientId === undefined) return { entries } satisfies LedgerPage;
      return {
        entries: await withUnboundDevices(readModel, { region, clientId }, entries),
      } satisfies LedgerPage;
    },
  );
  refuseOtherMethods(app, '/api/ledger', new Set(['GET', 'HEAD']));
}
