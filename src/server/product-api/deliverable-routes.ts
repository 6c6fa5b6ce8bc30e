import type { FastifyInstance } from 'fastify';
import { accountOf } from '#domain/account.ts';
import {
  DELIVERABLE_LIST_LIMIT,
  DeliverableAnswerSchema,
  DeliverableRequestSchema,
  type DeliverableAnswer,
  type NotMeasured,
} from '#domain/deliverable.ts';
import type { Device } from '#domain/device.ts';
import {
  fleetDeliverableOf,
  isRecentSample,
  needsSnapshotRead,
  snapshotDeviceOf,
  type FleetDeliverableDevice,
} from '#domain/fleet-power.ts';
import type { TelemetrySample } from '#domain/telemetry.ts';
import { NOT_FOLLOWING_FLAG, notFollowingFlagOf } from '#domain/verdict.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import type { BudgetedTelemetry } from '../telemetry/budgeted-telemetry.ts';
import { SETTINGS_KEPT_MS } from '../telemetry/command-verification.ts';
import { SNAPSHOT_PERIOD_MS } from '#domain/fleet-picture.ts';
import type { LatestSampleStore } from '../telemetry/latest-sample-store.ts';
import type { VerdictStore } from '../telemetry/verdict-store.ts';
import type { SiteDirectory } from '../upstream/site-directory.ts';
import {
  COMMON_PROBLEMS,
  productRoutes,
  requireSession,
  sessionOf,
  tokenUse,
  type ProductApiDeps,
} from './declare.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `POST /api/deliverable` (docs/verification.md, Deliverable power before sending): before a batch
 * or a fleet job is sent, a snapshot of the selection's latest samples (only the devices not read
 * in the last few minutes, one `latestData/query` per 100 devices inside each device's budget,
 * yielding to changes), the power they can hold for the window, the devices that cannot last it,
 * those not measured, and those flagged for not following their recent commands.
 */
export async function deliverableRoutes(
  app: FastifyInstance,
  deps: Pick<ProductApiDeps, 'sessions'> & {
    sites: SiteDirectory;
    latest: LatestSampleStore;
    verdicts: VerdictStore;
    telemetry: Pick<BudgetedTelemetry, 'latest'>;
    /** The upstream's clock, epoch ms (the device budget's). */
    now: () => number;
  },
): Promise<void> {
  const { sessions, sites, latest, verdicts, telemetry, now } = deps;
  productRoutes(app).post(
    '/api/deliverable',
    {
      // Only someone who may send reads the devices for it: the snapshot spends their calls.
      config: tokenUse('dispatch', 'account'),
      preValidation: requireSession(sessions, 'dispatch'),
      schema: {
        tags: ['commands'],
        summary:
          'Before sending: the power a selection can deliver for the window, the devices that cannot last it, and those that did not follow their recent commands',
        description:
          'Reads the latest sample of each device of a bound site not read in the last few minutes, one vendor `latestData/query` per 100 devices within each device’s budget (a device whose calls are kept for changes is not read, and its time is answered). Without a target battery power nothing is read: only the devices that did not follow 2 of their last 3 commands are answered.',
        body: DeliverableRequestSchema,
        response: { 200: DeliverableAnswerSchema, ...COMMON_PROBLEMS },
      },
    },
    async (request): Promise<DeliverableAnswer> => {
      const session = sessionOf(request);
      const account = accountOf(session);
      const { command } = request.body;
      const deviceIds = [...new Set(request.body.deviceIds)];
      const listed = await sites.devices(session, deviceIds);
      const bound = deviceIds.filter((deviceId) => listed.has(deviceId));
      const unknown = deviceIds.filter((deviceId) => !listed.has(deviceId));
      const lastVerdicts = await verdicts.lastVerdictsOf(account, bound, NOT_FOLLOWING_FLAG.of);
      const notFollowing = bound.flatMap((deviceId) => {
        const flag = notFollowingFlagOf(lastVerdicts.get(deviceId) ?? []);
        return flag ? [{ deviceId, ...flag }] : [];
      });
      const targetW = command?.powerControl.targetBatteryPowerW;
      if (!command || targetW === undefined || targetW === 0)
        return {
          takenAt: iso(now()),
          devices: deviceIds.length,
          snapshot: { calls: 0, read: 0, deferred: 0 },
          notFollowing,
          unknown,
        };

      const stored = await latest.samplesOf(account, bound);
      const askedAtMs = now();
      const toRead = bound.filter((deviceId) =>
        needsSnapshotRead(stored.get(deviceId)?.readAtMs, askedAtMs),
      );
      const read = await telemetry.latest(session, toRead);
      const readAtMs = now();
      const asked = toRead.filter((deviceId) => !read.deferred.has(deviceId));
      await latest.keepSnapshot(account, {
        asked,
        samples: read.samples,
        nowMs: readAtMs,
        nextReadAtMs: readAtMs + SNAPSHOT_PERIOD_MS,
      });

      const settings = await verdicts.settingsOfDevices(
        account,
        bound,
        readAtMs - SETTINGS_KEPT_MS,
      );
      const notMeasured = new Map<string, NotMeasured>();
      const devices: FleetDeliverableDevice[] = bound.map((deviceId) => {
        const sample: TelemetrySample | undefined =
          read.samples.get(deviceId) ?? stored.get(deviceId)?.sample;
        const ratings = ratingsOf(listed.get(deviceId));
        const deferredUntil = read.deferred.get(deviceId);
        if (!sample || !isRecentSample(sample, readAtMs) || !ratings) {
          notMeasured.set(deviceId, {
            deviceId,
            ...(sample && isRecentSample(sample, readAtMs)
              ? { reason: 'unrated' }
              : deferredUntil !== undefined
                ? { reason: 'budget', readableAt: iso(deferredUntil) }
                : { reason: 'silent' }),
            ...(sample ? { sampledAt: iso(sample.atMs) } : {}),
          });
          return { deviceId };
        }
        const configured = settings.get(deviceId);
        return {
          deviceId,
          snapshot: snapshotDeviceOf(sample, ratings, command.powerControl, {
            cutoffs: configured?.cutoffs,
            siteLimits: configured?.siteLimits,
          }),
        };
      });
      const durationMs = Date.parse(command.endTime) - Date.parse(command.startTime);
      const fleet = fleetDeliverableOf(devices, targetW, durationMs);
      const lastReadableMs = [...read.deferred.values()].reduce(
        (a, b) => Math.max(a, b),
        -Infinity,
      );
      return {
        takenAt: iso(readAtMs),
        devices: deviceIds.length,
        power: {
          requestedW: targetW,
          durationMs,
          commandedW: fleet.commandedW,
          deliverableW: fleet.deliverableW,
          measured: fleet.measured,
          cannotLast: fleet.cannotLast.slice(0, DELIVERABLE_LIST_LIMIT),
          cannotLastCount: fleet.cannotLast.length,
          notMeasured: fleet.notMeasured
            .slice(0, DELIVERABLE_LIST_LIMIT)
            .flatMap((deviceId) => notMeasured.get(deviceId) ?? []),
          notMeasuredCount: fleet.notMeasured.length,
        },
        snapshot: {
          calls: read.calls,
          read: asked.length,
          deferred: read.deferred.size,
          ...(read.deferred.size > 0 ? { readableAt: iso(lastReadableMs) } : {}),
        },
        notFollowing,
        unknown,
      };
    },
  );
  refuseOtherMethods(app, '/api/deliverable', new Set(['POST']));
}

/** A device's capacity and power ratings from the site list; undefined when either is unknown. */
function ratingsOf(
  device: Device | undefined,
): { capacityKwh: number; maxChargePowerW: number; maxDischargePowerW: number } | undefined {
  const range = device?.capabilities.targetBatteryPowerW;
  const capacityKwh = device?.batteryCapacityKwh;
  if (!range || capacityKwh === undefined || capacityKwh <= 0) return undefined;
  return { capacityKwh, maxChargePowerW: -range.min, maxDischargePowerW: range.max };
}
