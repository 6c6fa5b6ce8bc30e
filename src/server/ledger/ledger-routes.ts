import type { FastifyInstance } from 'fastify';
import { LedgerQuerySchema, type LedgerPage } from '../../domain/ledger.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import { parseInput } from '../http/parse.ts';
import { ProblemError } from '../http/problem.ts';
import type { Sessions } from '../session/sessions.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import type { Ledger } from './ledger.ts';
import { toLedgerEntry } from './ledger-store.ts';

/**
 * `GET /api/ledger` (docs/architecture.md, Ledger): the signed-in client's ledger entries, newest
 * first, filtered by device, batch, site (resolved to the site's devices through `GET /sites`),
 * kind, state and creation time. It serves the batch list and the audit view. Only a site
 * filter needs the upstream (and so, in company sign-in, the region's vendor connection).
 */
export async function ledgerRoutes(
  app: FastifyInstance,
  options: {
    sessions: Sessions;
    sites: SiteDirectory;
    ledger: Ledger | undefined;
    now: () => number;
  },
): Promise<void> {
  const { sessions, sites, ledger, now } = options;
  app.get('/api/ledger', async (request) => {
    const reader = await sessions.requireReader(request);
    const query = parseInput(LedgerQuerySchema, request.query, 'query');
    if (!ledger)
      throw new ProblemError(
        503,
        'ledger_unavailable',
        "This server runs without a database, so it keeps no ledger of changes. Each device's command history still shows its commands.",
      );
    const siteDevices = query.siteId
      ? await sites.devicesOf(await sessions.require(request), query.siteId)
      : undefined;
    const rows = await ledger.store.list(reader, query, siteDevices);
    const nowMs = now();
    return { entries: rows.map((row) => toLedgerEntry(row, nowMs)) } satisfies LedgerPage;
  });
  refuseOtherMethods(app, '/api/ledger', new Set(['GET', 'HEAD']));
}
