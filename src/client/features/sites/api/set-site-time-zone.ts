import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SiteSchema, type Site, type SiteList } from '#domain/device.ts';
import type { SiteId } from '#domain/ids.ts';
import { commandKeys } from '#client/commands/api/command-keys.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { siteKeys } from './site-keys.ts';

const timeZonePath = (siteId: SiteId) => `/sites/${encodeURIComponent(siteId)}/time-zone`;

/**
 * `PUT /api/sites/{siteId}/time-zone` (docs/decisions/006, sections 3 and 6): answers the site with
 * its `set` clock. 403 `forbidden_role` for non-administrators, 400 for an unknown zone.
 */
export function setSiteTimeZone(siteId: SiteId, timeZone: string): Promise<Site> {
  return apiRequest(timeZonePath(siteId), SiteSchema, { method: 'PUT', body: { timeZone } });
}

/** `DELETE /api/sites/{siteId}/time-zone`: back to the inferred zone, else the vendor's offset; answers the site. */
export function clearSiteTimeZone(siteId: SiteId): Promise<Site> {
  return apiRequest(timeZonePath(siteId), SiteSchema, { method: 'DELETE' });
}

/** A change of a site's zone: an IANA name to set, or `null` to use the vendor's offset again. */
export interface SiteTimeZoneChange {
  siteId: SiteId;
  timeZone: string | null;
}

/** Sets or clears a site's zone; the answer replaces the cached site at once, so every screen uses the new clock. */
export function useSetSiteTimeZone() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ siteId, timeZone }: SiteTimeZoneChange) =>
      timeZone === null ? clearSiteTimeZone(siteId) : setSiteTimeZone(siteId, timeZone),
    onSuccess: (site) => {
      queryClient.setQueryData<SiteList>(siteKeys.list(), (list) =>
        list ? { sites: list.sites.map((s) => (s.siteId === site.siteId ? site : s)) } : list,
      );
    },
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: siteKeys.all }),
        queryClient.invalidateQueries({ queryKey: commandKeys.ledger() }),
      ]),
  });
}
