import type { QueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { useDeviceHistory } from '../../commands/api/get-command-history.ts';
import { HistoryView } from '../../features/history/components/history-view.tsx';
import {
  historySearchParams,
  parseHistorySearch,
} from '../../features/history/lib/history-search.ts';
import { resolveHistoryRange } from '../../features/history/lib/history-view-range.ts';
import { sitesQueryOptions } from '../../features/sites/api/get-sites.ts';
import { zoneLabel } from '../../lib/time.ts';
import { DeviceLookup } from './device-lookup.tsx';
import { SiteClock } from './site-clock.tsx';
import { devicePath } from '../../lib/device-paths.ts';
import { Breadcrumb } from '../../components/breadcrumb.tsx';

function HistoryRoute() {
  const { siteId = '', deviceId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const search = useMemo(() => parseHistorySearch(params), [params]);
  // Presets end when the range was chosen, so sorting and paging neither move the range nor refetch.
  const [nowMs, setNowMs] = useState(() => Date.now());
  const range = resolveHistoryRange(search, nowMs);
  const history = useDeviceHistory(deviceId, range.ok ? range : null);

  return (
    <DeviceLookup
      siteId={siteId}
      deviceId={deviceId}
      notFoundHeading="Command history: device not found"
      unboundAdvice={`The site must be bound again on the Sites page to see the history of ${deviceId}.`}
    >
      {({ site, device, timeZone, knownZone }) => (
        <>
          <title>{`History of ${device.deviceId} · powerdeck`}</title>
          <Breadcrumb
            trail={[
              { label: 'Sites', to: '/sites' },
              { label: site.name },
              { label: device.deviceId, to: devicePath(site.siteId, device.deviceId) },
            ]}
            current="History"
          />
          <h1>
            Command history of {device.name} <span className="secondary">{device.deviceId}</span>
          </h1>
          <SiteClock site={site} />
          {knownZone ? null : (
            <p className="notice notice-warning">
              This browser does not know the site&apos;s time zone {zoneLabel(site.timeZone)}; times
              on this page are in UTC.
            </p>
          )}
          <HistoryView
            device={device}
            timeZone={timeZone}
            search={search}
            range={range}
            history={history}
            onChange={(next) => {
              if ('range' in next || 'from' in next || 'to' in next) setNowMs(Date.now());
              setParams(historySearchParams({ ...search, ...next }));
            }}
            onRefresh={() => {
              setNowMs(Date.now());
              void history.refetch();
            }}
          />
        </>
      )}
    </DeviceLookup>
  );
}

/**
 * `/sites/:siteId/devices/:deviceId/history`: its own chunk, so recharts and the CSV library stay
 * out of the initial bundle (docs/architecture.md, Budgets).
 */
export const historyRoute = (queryClient: QueryClient) => ({
  Component: HistoryRoute,
  loader: () => {
    void queryClient.prefetchQuery(sitesQueryOptions());
    return null;
  },
});
