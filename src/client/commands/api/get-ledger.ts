import { queryOptions } from '@tanstack/react-query';
import { LedgerPageSchema, type LedgerPage, type LedgerQuery } from '#domain/ledger.ts';
import { apiRequest } from '../../lib/api-client.ts';
import { commandKeys } from './command-keys.ts';

/**
 * `GET /api/ledger` (docs/architecture.md, Ledger): the client's matching entries, newest first.
 * Rejects with ApiError, e.g. 401 `not_signed_in` once the session has ended.
 */
export function getLedgerPage(query: LedgerQuery, signal?: AbortSignal): Promise<LedgerPage> {
  return apiRequest('/ledger', LedgerPageSchema, { query, signal });
}

/** One filtered page of the ledger; every command mutation invalidates the whole ledger (each writes an entry). */
export const ledgerPageQueryOptions = (query: LedgerQuery) =>
  queryOptions({
    queryKey: commandKeys.ledgerPage(query),
    queryFn: ({ signal }) => getLedgerPage(query, signal),
    staleTime: 10_000,
  });
