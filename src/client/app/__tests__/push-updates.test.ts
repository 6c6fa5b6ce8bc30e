import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { ACCOUNT_EVENT_TYPES } from '#domain/account-events.ts';
import { fleetPictureKeys } from '../../features/overview/api/fleet-picture-keys.ts';
import { overviewKeys } from '../../features/overview/api/overview-keys.ts';
import { commandKeys } from '../../commands/api/command-keys.ts';
import { notificationKeys } from '../../features/notifications/api/notification-keys.ts';
import { siteKeys } from '../../features/sites/api/site-keys.ts';
import { verdictKeys } from '../../features/verification/api/verdict-keys.ts';
import {
  PUSH_BATCH_MS,
  PUSH_INVALIDATIONS,
  PUSH_SPACING_MS,
  createPushApplier,
  invalidationsOf,
} from '../push-updates.ts';

const jobId = '0b8f6a4e-9c1d-4e2f-8a3b-5c6d7e8f9a0b';
const slot = { startMs: 0, endMs: 1 };

/** A query client holding one fresh entry per key the table can touch, and a bystander. */
function seededClient() {
  const queryClient = new QueryClient();
  const keys = {
    history1: commandKeys.history('BAT-1', slot),
    status1: commandKeys.status('BAT-1', 'cmd_1'),
    history2: commandKeys.history('BAT-2', slot),
    sites: siteKeys.list(),
    ledger: commandKeys.ledgerPage({ limit: 100 }),
    jobs: commandKeys.fleetJobs(),
    job: commandKeys.fleetJob(jobId),
    otherJob: commandKeys.fleetJob('11111111-2222-4333-8444-555555555555'),
    inbox: notificationKeys.list(),
    fleetPicture: fleetPictureKeys.region('eu'),
    verdicts1: verdictKeys.device('BAT-1'),
    verdicts2: verdictKeys.device('BAT-2'),
    batchVerdicts: verdictKeys.batch('batch_1'),
    jobVerdicts: verdictKeys.fleetJob(jobId),
  };
  for (const key of Object.values(keys)) queryClient.setQueryData(key, { seeded: true });
  const stale = () =>
    Object.entries(keys)
      .filter(([, key]) => queryClient.getQueryState(key)?.isInvalidated)
      .map(([name]) => name)
      .sort();
  return { queryClient, stale };
}

const message = (type: string, data: unknown) => ({ type, data, id: '1' });

describe('what each pushed event makes stale', () => {
  it('has an entry for every event type the domain knows', () => {
    expect(Object.keys(PUSH_INVALIDATIONS).sort()).toEqual([...ACCOUNT_EVENT_TYPES].sort());
  });

  it.each([
    // What runs now is in the fleet picture: each event that moves the overview reads it again.
    ['deviceCommandsChanged', { deviceIds: ['BAT-1'] }, ['fleetPicture', 'history1', 'status1']],
    ['siteBindingsChanged', {}, ['fleetPicture', 'sites']],
    ['ledgerEntryChanged', { id: '12', kind: 'batch' }, ['fleetPicture', 'ledger']],
    ['fleetJobChanged', { jobId }, ['fleetPicture', 'job', 'jobs']],
    ['notificationCreated', { notificationId: '3' }, ['inbox']],
    ['notificationsRead', { all: true }, ['inbox']],
    ['fleetPictureChanged', {}, ['fleetPicture']],
    // Any device's verdict may move any batch's or fleet job's figures.
    [
      'deviceVerdictsChanged',
      { deviceIds: ['BAT-2'] },
      ['batchVerdicts', 'fleetPicture', 'jobVerdicts', 'verdicts2'],
    ],
  ])('%s invalidates only what it changed', async (type, data, expected) => {
    const { queryClient, stale } = seededClient();
    const applier = createPushApplier(queryClient, 0, 0);
    applier.apply(message(type, data));
    // Gathered first, then applied together.
    expect(stale()).toEqual([]);
    await vi.waitFor(() => expect(stale()).toEqual(expected));
  });

  it('ignores an unknown type and a malformed event', () => {
    expect(invalidationsOf(message('somethingNew', { x: 1 }))).toEqual([]);
    expect(invalidationsOf(message('deviceCommandsChanged', { deviceIds: [] }))).toEqual([]);
  });

  it('makes everything stale on resync', async () => {
    const { queryClient, stale } = seededClient();
    createPushApplier(queryClient, 0, 0).apply({ type: 'resync', id: '9' });
    await vi.waitFor(() => expect(stale()).toHaveLength(14));
  });

  it('invalidates a query once for a burst of events about it', async () => {
    const { queryClient } = seededClient();
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
    const applier = createPushApplier(queryClient, 0, 0);
    for (let i = 0; i < 30; i++)
      applier.apply(message('deviceCommandsChanged', { deviceIds: ['BAT-1', `BAT-${i % 3}`] }));
    await vi.waitFor(() => expect(invalidate).toHaveBeenCalled());
    expect(invalidate.mock.calls.map(([filter]) => filter?.queryKey)).toEqual([
      commandKeys.device('BAT-1'),
      commandKeys.device('BAT-0'),
      overviewKeys.all,
      commandKeys.device('BAT-2'),
    ]);
  });

  it('refetches a trickle of events about one query at most once per spacing, the first at once', async () => {
    vi.useFakeTimers();
    try {
      const { queryClient } = seededClient();
      const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
      const applier = createPushApplier(queryClient);
      const runsOfSites = () =>
        invalidate.mock.calls.filter(([filter]) => filter?.queryKey === siteKeys.all).length;
      // A newly bound site's devices read one by one: an event every 200 ms for 3 s.
      applier.apply(message('deviceCapabilitiesChanged', { deviceIds: ['BAT-0'] }));
      await vi.advanceTimersByTimeAsync(PUSH_BATCH_MS);
      expect(runsOfSites()).toBe(1);
      for (let i = 1; i <= 15; i++) {
        await vi.advanceTimersByTimeAsync(200);
        applier.apply(message('deviceCapabilitiesChanged', { deviceIds: [`BAT-${i}`] }));
      }
      await vi.advanceTimersByTimeAsync(PUSH_SPACING_MS);
      // 16 events over 3 s, spaced by a second: runs at 0.05, 1.05, 2.05, 3.05 and (for the
      // event at 3.05 s, not lost) 4.05 s; five, not sixteen.
      expect(runsOfSites()).toBe(5);
      // After a quiet second, a lone event runs within the gathering time again.
      await vi.advanceTimersByTimeAsync(PUSH_SPACING_MS);
      applier.apply(message('deviceCapabilitiesChanged', { deviceIds: ['BAT-1'] }));
      await vi.advanceTimersByTimeAsync(PUSH_BATCH_MS);
      expect(runsOfSites()).toBe(6);
      applier.cancel();
    } finally {
      vi.useRealTimers();
    }
  });
});
