import { useQuery } from '@tanstack/react-query';
import { QueuedChangeList } from '../../commands/components/queued-change-list.tsx';
import { sitesQueryOptions } from '../../features/sites/api/get-sites.ts';
import { useDeviceBudgetWords } from '../../lib/device-budget.ts';
import { usePermission } from './use-permission.ts';

/** `/changes`: the account's changes waiting for their devices' calls (docs/decisions/007-device-call-budget.md, section 2). */
export function QueuedChangesRoute() {
  const dispatch = usePermission('dispatch');
  const budgetWords = useDeviceBudgetWords();
  const sites = useQuery(sitesQueryOptions());
  const zoneOfDevice = new Map(
    (sites.data?.sites ?? []).flatMap((site) =>
      site.devices.map((device) => [device.deviceId, site.timeZone] as const),
    ),
  );
  // The devices' one zone; UTC for devices of sites in several zones or not known (yet).
  const timeZoneOf = (deviceIds: readonly string[]) => {
    const zones = new Set(deviceIds.map((deviceId) => zoneOfDevice.get(deviceId)));
    const [only] = zones;
    return zones.size === 1 && only ? only : 'UTC';
  };
  return (
    <>
      <title>Queued changes · powerdeck</title>
      <h1>Queued changes</h1>
      <p className="lead">
        Calls to the vendor go at most {budgetWords}. A change that finds its devices&apos; calls
        spent waits here and goes by itself at the time shown; until it starts, it can be withdrawn.
      </p>
      {dispatch.allowed ? null : <p className="notice">{dispatch.why}</p>}
      <QueuedChangeList timeZoneOf={timeZoneOf} canWithdraw={dispatch.allowed} />
    </>
  );
}
