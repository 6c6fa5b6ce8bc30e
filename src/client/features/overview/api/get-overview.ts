import { queryOptions, useQuery } from '@tanstack/react-query';
import { OverviewSchema, type Overview } from '#domain/overview.ts';
import type { Region } from '#domain/token.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { refetchWhileFailing } from '#client/lib/refetch-while-failing.ts';
import { overviewKeys } from './overview-keys.ts';

/** Overview poll while shown, ms: no event says a window began, and a read costs the vendor nothing (docs/architecture.md, Overview). */
export const OVERVIEW_REFRESH_MS = 5_000;

/** `GET /api/overview?region=`: the account's overview; 409 `other_region` for another region. */
export function getOverview(region: Region, signal?: AbortSignal): Promise<Overview> {
  return apiRequest(`/overview?${new URLSearchParams({ region }).toString()}`, OverviewSchema, {
    signal,
  });
}

export const overviewQueryOptions = (region: Region) =>
  queryOptions({
    queryKey: overviewKeys.region(region),
    queryFn: ({ signal }) => getOverview(region, signal),
    // Kept on screen when a refresh fails (StaleDataNotice), tried again meanwhile.
    refetchInterval: refetchWhileFailing(OVERVIEW_REFRESH_MS),
  });

export const useOverview = (region: Region | undefined) =>
  useQuery({ ...overviewQueryOptions(region ?? 'eu'), enabled: region !== undefined });
