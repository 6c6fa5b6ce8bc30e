import type { InvalidateQueryFilters, QueryClient } from '@tanstack/react-query';
import {
  AccountEventSchema,
  type AccountEventData,
  type AccountEventType,
  type PushEnvelope,
} from '#domain/account-events.ts';
import { commandKeys } from '../commands/api/command-keys.ts';
import { fleetPictureKeys } from '../features/overview/api/fleet-picture-keys.ts';
import { overviewKeys } from '../features/overview/api/overview-keys.ts';
import { notificationKeys } from '../features/notifications/api/notification-keys.ts';
import { siteKeys } from '../features/sites/api/site-keys.ts';
import { verdictKeys } from '../features/verification/api/verdict-keys.ts';

/**
 * What each account event makes stale (docs/architecture.md, Live updates), one entry per event
 * type: on-screen queries refetch at once, others when shown again.
 */
export const PUSH_INVALIDATIONS: {
  [T in AccountEventType]: (data: AccountEventData<T>) => InvalidateQueryFilters[];
} = {
  notificationCreated: () => [{ queryKey: notificationKeys.all }],
  notificationsRead: () => [{ queryKey: notificationKeys.all }],
  // The overview shows commands, batches, fleet jobs and sites: each of these events moves it.
  deviceCommandsChanged: ({ deviceIds }) => [
    ...deviceIds.map((deviceId) => ({ queryKey: commandKeys.device(deviceId) })),
    { queryKey: overviewKeys.all },
  ],
  deviceCapabilitiesChanged: () => [{ queryKey: siteKeys.all }],
  // A batch's or fleet job's figures sum its devices' verdicts: any new verdict may move them, and
  // only the event pages on screen read theirs again; the fleet picture lists who did not follow.
  deviceVerdictsChanged: ({ deviceIds }) => [
    ...deviceIds.map((deviceId) => ({ queryKey: verdictKeys.device(deviceId) })),
    { queryKey: verdictKeys.events() },
    { queryKey: fleetPictureKeys.all },
  ],
  // New latest samples move the fleet picture only, not the overview's lists.
  fleetPictureChanged: () => [{ queryKey: fleetPictureKeys.all }],
  siteBindingsChanged: () => [{ queryKey: siteKeys.all }, { queryKey: overviewKeys.all }],
  ledgerEntryChanged: () => [{ queryKey: commandKeys.ledger() }, { queryKey: overviewKeys.all }],
  fleetJobChanged: ({ jobId }) => [
    { queryKey: commandKeys.fleetJob(jobId) },
    { queryKey: commandKeys.fleetJobs(), exact: true },
    { queryKey: overviewKeys.all },
  ],
  // Every list of changes and this one; once a step went, its devices' commands and the ledger.
  queuedChangeChanged: ({ state, deviceIds }) => [
    { queryKey: commandKeys.changes() },
    ...(state === 'queued'
      ? []
      : [
          ...deviceIds.map((deviceId) => ({ queryKey: commandKeys.device(deviceId) })),
          { queryKey: commandKeys.ledger() },
        ]),
  ],
};

export function invalidationsOf(message: PushEnvelope): InvalidateQueryFilters[] {
  const event = AccountEventSchema.safeParse({ type: message.type, data: message.data });
  if (!event.success) return [];
  const invalidate = PUSH_INVALIDATIONS[event.data.type] as
    ((data: unknown) => InvalidateQueryFilters[]) | undefined;
  return invalidate ? invalidate(event.data.data) : [];
}

/** How long invalidations are gathered before they run, ms: a replayed burst refetches once. */
export const PUSH_BATCH_MS = 50;

/**
 * Shortest time between runs of gathered invalidations, ms: a trickle of events (a newly bound
 * site's first reads) would otherwise refetch several times a second for minutes.
 */
export const PUSH_SPACING_MS = 1000;

/**
 * Applies stream messages to the query cache: invalidations gathered for {@link PUSH_BATCH_MS} and
 * run at most once per {@link PUSH_SPACING_MS}, so a burst refetches each query once; `resync` makes everything stale.
 *
 * @param batchMs gathering time, ms (tests pass 0).
 * @param spacingMs shortest time between two runs, ms (tests pass 0).
 */
export function createPushApplier(
  queryClient: QueryClient,
  batchMs = PUSH_BATCH_MS,
  spacingMs = PUSH_SPACING_MS,
) {
  let pending = new Map<string, InvalidateQueryFilters>();
  let everything = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastRunMs = Number.NEGATIVE_INFINITY;
  const flush = () => {
    timer = undefined;
    lastRunMs = Date.now();
    const filters = [...pending.values()];
    const all = everything;
    pending = new Map();
    everything = false;
    if (all) void queryClient.invalidateQueries();
    else for (const filter of filters) void queryClient.invalidateQueries(filter);
  };
  return {
    apply(message: PushEnvelope): void {
      if (message.type === 'resync') everything = true;
      else
        for (const filter of invalidationsOf(message))
          pending.set(JSON.stringify([filter.queryKey, filter.exact ?? false]), filter);
      if (!everything && pending.size === 0) return;
      timer ??= setTimeout(flush, Math.max(batchMs, lastRunMs + spacingMs - Date.now()));
    },
    cancel(): void {
      clearTimeout(timer);
      timer = undefined;
      pending = new Map();
      everything = false;
    },
  };
}
