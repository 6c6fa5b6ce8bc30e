import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SiteSchema, type Site, type SiteList } from '../../../../domain/device.ts';
import type { SiteId } from '../../../../domain/ids.ts';
import { commandKeys } from '../../../commands/api/command-keys.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { siteKeys } from './site-keys.ts';

const timeZonePath = (siteId: SiteId) => `/sites/${encodeURIComponent(siteId)}/time-zone`;

/**
 * `PUT /api/sites/{siteId}/time-zone {timeZone}` (docs/decisions/006, sections 3 and 6): sets the
 * site's IANA zone; answers the site, its clock `set` (by whom, when). Administrators only
 * (403 `forbidden_role` otherwise); a zone the BFF does not know is refused (400).
 */
export function setSiteTimeZone(siteId: SiteId, timeZone: string): Promise<Site> {
  return apiRequest(timeZonePath(siteId), SiteSchema, { method: 'PUT', body: { timeZone } });
}

/**
 * `DELETE /api/sites/{siteId}/time-zone`: forgets the zone set for the site, which goes back to
 * the zone worked out from its country and the vendor's offset, else the vendor's fixed offset;
 * answers the site with that clock.
 */
export function clearSiteTimeZone(siteId: SiteId): Promise<Site> {
  return apiRequest(timeZonePath(siteId), SiteSchema, { method: 'DELETE' });
}

/** A change of a site's zone: an IANA name to set, or `null` to use the vendor's offset again. */
export interface SiteTimeZoneChange {
  siteId: SiteId;
  timeZone: string | null;
}

/**
 * Sets or clears a site's zone. The answered site replaces the cached one at once (through
 * `siteKeys`), so every screen of the site shows its times on the new clock without waiting for a
 * read; the site list is then read again, and the ledger, which records the change.
 */
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
