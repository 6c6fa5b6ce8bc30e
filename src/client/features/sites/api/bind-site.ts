import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SiteSchema, type Site, type SiteList } from '#domain/device.ts';
import type { SiteId } from '#domain/ids.ts';
import { apiRequestWithStatus } from '#client/lib/api-client.ts';
import { siteKeys } from './site-keys.ts';

export interface BindSiteResult {
  site: Site;
  /** The BFF answered 200: the site was bound to this account already. */
  alreadyBound: boolean;
}

/**
 * `POST /api/sites {siteId}` (docs/upstream.md, Sites): 201 bound, 200 bound already; 404
 * `unknown_or_unbound`, 409 `site_bound_elsewhere`.
 */
export async function bindSite(siteId: SiteId): Promise<BindSiteResult> {
  const { status, data } = await apiRequestWithStatus('/sites', SiteSchema, {
    method: 'POST',
    body: { siteId },
  });
  return { site: data, alreadyBound: status === 200 };
}

export function useBindSite() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: bindSite,
    onSuccess: ({ site }) => {
      queryClient.setQueryData<SiteList>(siteKeys.list(), (list) =>
        list ? { sites: [...list.sites.filter((s) => s.siteId !== site.siteId), site] } : list,
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: siteKeys.all }),
  });
}
