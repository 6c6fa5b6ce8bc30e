import type { QueryClient } from '@tanstack/react-query';
import { Link, useParams, type LoaderFunctionArgs } from 'react-router';
import { useState } from 'react';
import { prefetchDeviceHistory, useDeviceHistory } from '../../commands/api/get-command-history.ts';
import { QueuedChangeList } from '../../commands/components/queued-change-list.tsx';
import { DeviceCommandForm } from '../../features/device-commands/components/device-command-form.tsx';
import { CommandTable } from '../../features/device-commands/components/command-table.tsx';
import { deviceCommandsRange } from '../../features/device-commands/lib/history-range.ts';
import { DeviceSummary } from '../../features/devices/components/device-summary.tsx';
import { sitesQueryOptions } from '../../features/sites/api/get-sites.ts';
import { deviceVerdictsQueryOptions } from '../../features/verification/api/get-device-verdicts.ts';
import { DeviceVerification } from '../../features/verification/components/device-verification.tsx';
import { zoneLabel } from '../../lib/time.ts';
import { DeviceLookup } from './device-lookup.tsx';
import { SiteClock } from './site-clock.tsx';
import { deviceHistoryPath } from '../../lib/device-paths.ts';
import { usePermission } from './use-permission.ts';
import { Breadcrumb } from '../../components/breadcrumb.tsx';

function DeviceRoute() {
  const { siteId = '', deviceId = '' } = useParams();
  const dispatch = usePermission('dispatch');

  return (
    <DeviceLookup
      siteId={siteId}
      deviceId={deviceId}
      notFoundHeading="Device not found"
      unboundAdvice={`Bind it again on the Sites page to reach ${deviceId}.`}
    >
      {({ site, device, timeZone, knownZone }) => (
        <>
          <title>{`${device.deviceId} · powerdeck`}</title>
          <Breadcrumb
            trail={[{ label: 'Sites', to: '/sites' }, { label: site.name }]}
            current={device.deviceId}
          />
          <h1>
            {device.name} <span className="secondary">{device.deviceId}</span>
          </h1>
          <DeviceSummary site={site} device={device} />
          <SiteClock site={site} />
          <p>
            <Link to={deviceHistoryPath(site.siteId, device.deviceId)}>
              Command history: 30 days, charts and CSV export
            </Link>
          </p>
          {knownZone ? null : (
            <p className="notice notice-warning">
              This browser does not know the site&apos;s time zone {zoneLabel(site.timeZone)}; times
              on this page are in UTC.
            </p>
          )}
          <section className="device-section" aria-labelledby="new-command-heading">
            <h2 id="new-command-heading">New command</h2>
            {dispatch.allowed ? (
              <DeviceCommandForm key={device.deviceId} device={device} timeZone={timeZone} />
            ) : (
              <p className="notice">{dispatch.why}</p>
            )}
          </section>
          <section className="device-section" aria-labelledby="queued-changes-heading">
            <h2 id="queued-changes-heading">Queued changes</h2>
            <QueuedChangeList
              key={device.deviceId}
              deviceId={device.deviceId}
              timeZoneOf={() => timeZone}
              canWithdraw={dispatch.allowed}
            />
          </section>
          <section className="device-section" aria-labelledby="commands-heading">
            <h2 id="commands-heading">Commands</h2>
            <CommandTable
              key={device.deviceId}
              deviceId={device.deviceId}
              deviceName={device.name}
              timeZone={timeZone}
              canCancel={dispatch.allowed}
            />
          </section>
          <section className="device-section" aria-labelledby="verdicts-heading">
            <h2 id="verdicts-heading">Verdicts: commanded against measured</h2>
            <WatchedVerification
              key={device.deviceId}
              deviceId={device.deviceId}
              timeZone={timeZone}
            />
          </section>
        </>
      )}
    </DeviceLookup>
  );
}

/** The device's verdicts, its running window read as it goes while one of its commands executes. */
function WatchedVerification({ deviceId, timeZone }: { deviceId: string; timeZone: string }) {
  // The range the command table reads (the same queries, so no second read).
  const [range] = useState(() => deviceCommandsRange(Date.now()));
  const history = useDeviceHistory(deviceId, range);
  const running = history.data?.commands.some((command) => command.status === 'executing') ?? false;
  return <DeviceVerification deviceId={deviceId} timeZone={timeZone} running={running} />;
}

/** `/sites/:siteId/devices/:deviceId`: one device, its command form, its commands and their verdicts. */
export const deviceRoute = (queryClient: QueryClient) => ({
  Component: DeviceRoute,
  loader: ({ params }: LoaderFunctionArgs) => {
    void queryClient.prefetchQuery(sitesQueryOptions());
    if (params.deviceId) {
      prefetchDeviceHistory(queryClient, params.deviceId, deviceCommandsRange(Date.now()));
      void queryClient.prefetchQuery(deviceVerdictsQueryOptions(params.deviceId));
    }
    return null;
  },
});
