import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SiteSchema, type Site, type SiteList } from '../../../../domain/device.ts';
import type { SiteId } from '../../../../domain/ids.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { siteKeys } from './site-keys.ts';

/**
 * `PUT /api/sites/{siteId}/time-zone {timeZone}`: an administrator sets the zone the site's
 * times are shown on (an IANA name, or a fixed offset); answers the site, its clock `set`.
 */
export function setSiteTimeZone(siteId: SiteId, timeZone: string): Promise<Site> {
  return apiRequest(`/sites/${encodeURIComponent(siteId)}/time-zone`, SiteSchema, {
    method: 'PUT',
    body: { timeZone },
  });
}

/**
 * `DELETE /api/sites/{siteId}/time-zone`: clears the zone an administrator set; answers the site
 * with its clock inferred again (or the vendor's offset).
 */
export function clearSiteTimeZone(siteId: SiteId): Promise<Site> {
  return apiRequest(`/sites/${encodeURIComponent(siteId)}/time-zone`, SiteSchema, {
    method: 'DELETE',
  });
}

/** Sets (`timeZone`) or clears (null) a site's time zone; the site list follows at once. */
export function useSiteTimeZone() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ siteId, timeZone }: { siteId: SiteId; timeZone: string | null }) =>
      timeZone === null ? clearSiteTimeZone(siteId) : setSiteTimeZone(siteId, timeZone),
    onSuccess: (site) => {
      queryClient.setQueryData<SiteList>(siteKeys.list(), (list) =>
        list ? { sites: list.sites.map((s) => (s.siteId === site.siteId ? site : s)) } : list,
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: siteKeys.all }),
  });
}
