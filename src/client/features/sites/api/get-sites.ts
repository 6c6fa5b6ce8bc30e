import { queryOptions, useQuery } from '@tanstack/react-query';
import { SiteListSchema, type SiteList } from '../../../../domain/device.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { siteKeys } from './site-keys.ts';

/**
 * `GET /api/sites`: the sites bound to the signed-in client, with their devices
 * (docs/architecture.md, Upstream contract: Sites).
 */
export function getSites(signal?: AbortSignal): Promise<SiteList> {
  return apiRequest('/sites', SiteListSchema, { signal });
}

export const sitesQueryOptions = () =>
  queryOptions({
    queryKey: siteKeys.list(),
    queryFn: ({ signal }) => getSites(signal),
    staleTime: 60_000,
  });

export const useSites = () => useQuery(sitesQueryOptions());
