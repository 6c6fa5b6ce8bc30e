import { useQueries } from '@tanstack/react-query';
import { isCancellable, type StatusRecord } from '#domain/command.ts';
import type { Site } from '#domain/device.ts';
import { historyRangeSlots } from '#domain/history.ts';
import { historySlotQueryOptions } from '#client/commands/api/get-command-history.ts';

/** What the unbind confirmation knows of a site's waiting and executing commands. */
export type SiteWaitingCommands =
  { state: 'loading' } | { state: 'unreadable' } | { state: 'read'; commands: StatusRecord[] };

/**
 * `site`'s received or executing commands, soonest first, from each device's present history slot
 * (the read model, no vendor call per device: docs/architecture.md, Read model). Nothing while null.
 */
export function useSiteWaitingCommands(site: Site | null, nowMs: number): SiteWaitingCommands {
  const slot = historyRangeSlots(nowMs, nowMs + 1)[0];
  const devices = site && slot ? site.devices : [];
  return useQueries({
    queries: devices.map((device) =>
      // `slot` is defined whenever `devices` is not empty.
      historySlotQueryOptions(device.deviceId, slot ?? { startMs: nowMs, endMs: nowMs }),
    ),
    combine: (results): SiteWaitingCommands => {
      if (results.some((result) => result.isError)) return { state: 'unreadable' };
      if (results.some((result) => result.data === undefined)) return { state: 'loading' };
      const commands = results
        .flatMap((result) => result.data?.commands ?? [])
        .filter((record) => isCancellable(record.status) && Date.parse(record.endTime) > nowMs)
        .sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
      return { state: 'read', commands };
    },
  });
}
