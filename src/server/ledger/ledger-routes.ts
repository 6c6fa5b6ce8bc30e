import type { FastifyInstance } from 'fastify';
import { SiteListSchema } from '../../domain/device.ts';
import { LedgerQuerySchema, type LedgerPage } from '../../domain/ledger.ts';
import { parseInput } from '../http/parse.ts';
import { ProblemError } from '../http/problem.ts';
import { refuseOtherMethods } from '../proxy/mirror.ts';
import { upstreamProblem } from '../proxy/upstream-problem.ts';
import type { Session } from '../session/session-store.ts';
import type { Sessions } from '../session/sessions.ts';
import type { UpstreamClient } from '../upstream/upstream-client.ts';
import { isJsonMediaType, mediaType, readCapped } from '../upstream/upstream-http.ts';
import type { Ledger } from './ledger.ts';
import { toLedgerEntry } from './ledger-store.ts';

/**
 * `GET /api/ledger` (issue 4): the signed-in client's ledger entries, newest first, filtered by
 * device, batch, site (resolved to the site's devices through `GET /sites`), kind, state and
 * creation time. It serves the batch list and the audit view.
 */
export async function ledgerRoutes(
  app: FastifyInstance,
  options: {
    sessions: Sessions;
    upstream: UpstreamClient;
    ledger: Ledger | undefined;
    now: () => number;
  },
): Promise<void> {
  const { sessions, upstream, ledger, now } = options;
  app.get('/api/ledger', async (request) => {
    const session = await sessions.require(request);
    const query = parseInput(LedgerQuerySchema, request.query, 'query');
    if (!ledger)
      throw new ProblemError(
        503,
        'ledger_unavailable',
        'This BFF runs without a database, so it keeps no ledger.',
      );
    const siteDevices = query.siteId
      ? await devicesOfSite(upstream, session, query.siteId)
      : undefined;
    const rows = await ledger.store.list(session, query, siteDevices);
    const nowMs = now();
    return { entries: rows.map((row) => toLedgerEntry(row, nowMs)) } satisfies LedgerPage;
  });
  refuseOtherMethods(app, '/api/ledger', new Set(['GET', 'HEAD']));
}

async function devicesOfSite(
  upstream: UpstreamClient,
  session: Session,
  siteId: string,
): Promise<string[]> {
  const response = await upstream.send(session, { method: 'GET', path: '/sites' });
  if (response.statusCode !== 200) throw await upstreamProblem(response);
  const text = await readCapped(response.body, 8 * 1024 * 1024);
  const parsed = isJsonMediaType(mediaType(response.headers))
    ? SiteListSchema.safeParse(JSON.parse(text))
    : undefined;
  if (!parsed?.success)
    throw new ProblemError(502, 'upstream_error', 'The upstream site list was unreadable.');
  return (
    parsed.data.sites.find((site) => site.siteId === siteId)?.devices.map((d) => d.deviceId) ?? []
  );
}
