import type { FastifyInstance } from 'fastify';
import { accountOf } from '#domain/account.ts';
import {
  fleetPictureOf,
  FleetPictureSchema,
  runningEventsOf,
  type DeviceRatings,
} from '#domain/fleet-picture.ts';
import { OverviewQuerySchema } from '#domain/overview.ts';
import { refuseOtherMethods } from '../http/method-not-allowed.ts';
import type { LatestSampleStore } from '../telemetry/latest-sample-store.ts';
import type { VerdictStore } from '../telemetry/verdict-store.ts';
import { SNAPSHOT_PERIOD_MS } from '#domain/fleet-picture.ts';
import {
  COMMON_PROBLEMS,
  problemResponse,
  productRoutes,
  requireSession,
  sessionOf,
  tokenUse,
  type ProductApiDeps,
} from './declare.ts';
import { refuseOtherRegion } from './overview-routes.ts';
import { overviewSince, type OverviewSource } from './overview-source.ts';

/** A device whose latest sample is older than two snapshot periods counts silent. */
export const SILENT_AFTER_MS = 2 * SNAPSHOT_PERIOD_MS + 60_000;
/** Verdicts of windows that ended longer ago than this ask no attention. */
export const ATTENTION_FOR_MS = 24 * 3_600_000;

/**
 * `GET /api/fleet-picture?region=` (docs/verification.md, Fleet picture): the fleet now, from the
 * latest samples the BFF read and the verdicts it keeps; never a vendor call per view. Another
 * region than the session's is 409 `other_region`, as the overview answers.
 */
export async function fleetPictureRoutes(
  app: FastifyInstance,
  deps: Pick<ProductApiDeps, 'sessions'> & {
    overview: OverviewSource;
    latest: LatestSampleStore;
    verdicts: VerdictStore;
    /** The vendor's clock, epoch ms. */
    now: () => number;
  },
): Promise<void> {
  const { sessions, overview, latest, verdicts, now } = deps;
  productRoutes(app).get(
    '/api/fleet-picture',
    {
      config: tokenUse('read', 'account'),
      preValidation: requireSession(sessions),
      schema: {
        tags: ['overview'],
        summary:
          'The fleet now: power charging and discharging per site and for the region, state of charge across the fleet, what runs now against what it gives, and the devices that need attention',
        querystring: OverviewQuerySchema,
        response: {
          200: FleetPictureSchema,
          409: problemResponse('Another region than the signed-in one (`other_region`).'),
          ...COMMON_PROBLEMS,
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      refuseOtherRegion(session.region, request.query.region, 'fleet');
      const nowMs = now();
      const account = accountOf(session);
      const [facts, devices, recent] = await Promise.all([
        overview.read(session, overviewSince(nowMs)),
        latest.latestOf(account),
        verdicts.recentVerdictsOf(account, nowMs - ATTENTION_FOR_MS),
      ]);
      // Names, zones, ratings and capacities from the site list the overview read (no device call).
      const listed = new Map(
        facts.sites.flatMap((site) => site.devices.map((device) => [device.deviceId, device])),
      );
      const siteOfDevice = new Map(devices.map((device) => [device.deviceId, device.siteId]));
      const ratingsOf = (deviceId: string): DeviceRatings | undefined => {
        const range = listed.get(deviceId)?.capabilities.targetBatteryPowerW;
        return range && { maxChargePowerW: -range.min, maxDischargePowerW: range.max };
      };
      return fleetPictureOf({
        // Only devices the site list still names: a site unbound since is out of reach.
        devices: devices
          .filter((device) => listed.has(device.deviceId))
          .map((device) => ({
            deviceId: device.deviceId,
            siteId: device.siteId,
            capacityKwh: listed.get(device.deviceId)?.batteryCapacityKwh ?? 0,
            latest: device.sample,
          })),
        sites: facts.sites.map((site) => ({
          siteId: site.siteId,
          siteName: site.name,
          timeZone: site.timeZone,
        })),
        running: runningEventsOf(facts, nowMs, ratingsOf),
        verdicts: [...recent.entries()].flatMap(([deviceId, list]) => {
          const siteId = siteOfDevice.get(deviceId);
          return siteId && listed.has(deviceId) ? [{ deviceId, siteId, verdicts: list }] : [];
        }),
        nowMs,
        silentAfterMs: SILENT_AFTER_MS,
        attentionForMs: ATTENTION_FOR_MS,
      });
    },
  );
  refuseOtherMethods(app, '/api/fleet-picture', new Set(['GET', 'HEAD']));
}
