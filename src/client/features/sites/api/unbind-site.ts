import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SiteList } from '#domain/device.ts';
import type { SiteId } from '#domain/ids.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { siteKeys } from './site-keys.ts';

/** `DELETE /api/sites/{siteId}`: its devices are out of reach until bound again (docs/upstream.md, Sites). */
export function unbindSite(siteId: SiteId): Promise<undefined> {
  return apiRequest(`/sites/${encodeURIComponent(siteId)}`, null, { method: 'DELETE' });
}

export function useUnbindSite() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: unbindSite,
    onSuccess: (_nothing, siteId) => {
      queryClient.setQueryData<SiteList>(siteKeys.list(), (list) =>
        list ? { sites: list.sites.filter((s) => s.siteId !== siteId) } : list,
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: siteKeys.all }),
  });
}
