import { queryOptions, useQuery } from '@tanstack/react-query';
import { SiteListSchema } from '#domain/device.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { refetchWhileFailing } from '#client/lib/refetch-while-failing.ts';
import { siteKeys } from './site-keys.ts';

/** `GET /api/sites`: the account's bound sites with their devices and clock. */
export const sitesQueryOptions = () =>
  queryOptions({
    queryKey: siteKeys.list(),
    queryFn: ({ signal }) => apiRequest('/sites', SiteListSchema, { signal }),
    staleTime: 60_000,
    // The list stays on screen when a refresh fails; it is tried again until the upstream answers.
    refetchInterval: refetchWhileFailing(),
  });

export const useSites = () => useQuery(sitesQueryOptions());
