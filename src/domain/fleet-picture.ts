import { z } from 'zod';
import { BatchCommandIdSchema, CommandIdSchema, DeviceIdSchema, SiteIdSchema } from './ids.ts';
import type { BatchFact, CommandFact } from './overview.ts';
import type { TelemetrySample } from './telemetry.ts';
import { UtcTimestampSchema } from './time.ts';
import { isRepeatedlyNotFollowing, type Verdict } from './verdict.ts';

/**
 * The fleet as it is now (docs/verification.md, Fleet picture): power charging and discharging
 * per site and for the region, state of charge across the fleet, what runs now with what it gives,
 * and the devices that need attention. Built from the latest samples the BFF read within the
 * devices' budgets, never from one read per view.
 */

/** Ten bands of state of charge: 0-10%, ..., 90-100% (100% in the last). */
/**
 * How often each bound device's latest sample is read by default, upstream clock: one
 * `latestData/query` call per 100 devices every five minutes is a tenth of a device's budget of
 * 2 calls a minute, and the vendor's coarser sampling rate is five minutes too.
 */
export const SNAPSHOT_PERIOD_MS = 5 * 60_000;

export const SOC_BAND_COUNT = 10;
/** Sites and attention lines in an answer; `counts` holds the full numbers. */
export const FLEET_PICTURE_LIMIT = 100;

const FleetPowerSchema = z.object({
  /** W, each at least 0. */
  dischargingW: z.number(),
  chargingW: z.number(),
  pvW: z.number(),
  gridImportW: z.number(),
  gridExportW: z.number(),
});

export const FleetSiteNowSchema = FleetPowerSchema.extend({
  siteId: SiteIdSchema,
  siteName: z.string().optional(),
  timeZone: z.string().optional(),
  devices: z.int(),
  reporting: z.int(),
  /** Stored energy over capacity of the reporting devices, percent; absent when none reports. */
  socPercent: z.number().optional(),
});
export type FleetSiteNow = z.infer<typeof FleetSiteNowSchema>;

export const FleetEventNowSchema = z.object({
  kind: z.enum(['batch', 'fleetJob', 'command']),
  /** The batch, the fleet job or the ledger entry of a single command. */
  id: z.string(),
  batchCommandId: BatchCommandIdSchema.optional(),
  commandId: CommandIdSchema.optional(),
  siteId: SiteIdSchema.optional(),
  startTime: UtcTimestampSchema,
  endTime: UtcTimestampSchema,
  devices: z.int(),
  /** Signed like battery power (positive discharges), W. */
  commandedW: z.number(),
  /** The reporting devices' battery power now, W. */
  measuredW: z.number(),
  measuredDevices: z.int(),
});
export type FleetEventNow = z.infer<typeof FleetEventNowSchema>;

export const FLEET_ATTENTION_REASONS = [
  'notFollowing',
  'repeatedlyNotFollowing',
  'noData',
  'silent',
] as const;
export const FleetAttentionSchema = z.object({
  deviceId: DeviceIdSchema,
  siteId: SiteIdSchema,
  reason: z.enum(FLEET_ATTENTION_REASONS),
  /** The command of a verdict; absent for a device silent now. */
  commandId: CommandIdSchema.optional(),
  /** When it was last heard of (a silent device), or the window's end (a verdict). */
  at: UtcTimestampSchema.optional(),
});
export type FleetAttention = z.infer<typeof FleetAttentionSchema>;

export const FleetPictureSchema = z.object({
  generatedAt: UtcTimestampSchema,
  /** The newest sample counted; absent when no device reports. */
  snapshotAt: UtcTimestampSchema.optional(),
  devices: z.object({ total: z.int(), reporting: z.int(), silent: z.int() }),
  power: FleetPowerSchema,
  energy: z.object({ storedKwh: z.number(), capacityKwh: z.number() }),
  /** Reporting devices per band of state of charge, {@link SOC_BAND_COUNT} bands. */
  socBands: z.array(z.int()).length(SOC_BAND_COUNT),
  /** Most power moving first. */
  sites: z.array(FleetSiteNowSchema),
  running: z.array(FleetEventNowSchema),
  attention: z.array(FleetAttentionSchema),
  counts: z.object({ sites: z.int(), attention: z.int() }),
});
export type FleetPicture = z.infer<typeof FleetPictureSchema>;

export interface FleetDevice {
  deviceId: string;
  siteId: string;
  capacityKwh: number;
  /** The latest sample read; absent when none was. */
  latest?: TelemetrySample | undefined;
}

export interface FleetSite {
  siteId: string;
  siteName?: string | undefined;
  timeZone?: string | undefined;
}

/** What runs now: a batch, a fleet job or a single command, its devices and commanded power. */
export interface RunningEvent {
  kind: FleetEventNow['kind'];
  id: string;
  batchCommandId?: string | undefined;
  commandId?: string | undefined;
  siteId?: string | undefined;
  startMs: number;
  endMs: number;
  deviceIds: readonly string[];
  /** Signed like battery power, W, summed over its devices. */
  commandedW: number;
}

/** A device's verdicts, newest first. */
export interface DeviceVerdicts {
  deviceId: string;
  siteId: string;
  verdicts: readonly { verdict: Verdict; commandId: string; endMs: number }[];
}

export interface FleetPictureInput {
  devices: readonly FleetDevice[];
  sites: readonly FleetSite[];
  running: readonly RunningEvent[];
  verdicts: readonly DeviceVerdicts[];
  nowMs: number;
  /** A latest sample older than this counts the device silent. */
  silentAfterMs: number;
  /** A verdict older than this no longer asks for attention. */
  attentionForMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

function emptyPower() {
  return { dischargingW: 0, chargingW: 0, pvW: 0, gridImportW: 0, gridExportW: 0 };
}

function addSample(power: ReturnType<typeof emptyPower>, sample: TelemetrySample): void {
  if (sample.batteryPowerW > 0) power.dischargingW += sample.batteryPowerW;
  else power.chargingW -= sample.batteryPowerW;
  power.pvW += Math.max(0, sample.pvPowerW);
  if (sample.gridPowerW > 0) power.gridImportW += sample.gridPowerW;
  else power.gridExportW -= sample.gridPowerW;
}

/** The band of a state of charge: 0 for 0-10%, 9 for 90-100%. */
export function socBandOf(socPercent: number): number {
  return Math.min(SOC_BAND_COUNT - 1, Math.max(0, Math.floor(socPercent / (100 / SOC_BAND_COUNT))));
}

/**
 * The fleet picture from the devices' latest samples, what runs now and the verdicts
 * (docs/verification.md, Fleet picture). Pure and O(devices + verdicts + events x devices).
 */
export function fleetPictureOf(input: FleetPictureInput): FleetPicture {
  const { nowMs } = input;
  const power = emptyPower();
  const socBands = Array.from({ length: SOC_BAND_COUNT }, () => 0);
  const sitesById = new Map(input.sites.map((site) => [site.siteId, site]));
  const perSite = new Map<
    string,
    ReturnType<typeof emptyPower> & {
      devices: number;
      reporting: number;
      storedKwh: number;
      capacityKwh: number;
    }
  >();
  const fresh = new Map<string, TelemetrySample>();
  const attention: FleetAttention[] = [];
  let storedKwh = 0;
  let capacityKwh = 0;
  let snapshotMs: number | undefined;
  for (const device of input.devices) {
    const site = perSite.get(device.siteId) ?? {
      ...emptyPower(),
      devices: 0,
      reporting: 0,
      storedKwh: 0,
      capacityKwh: 0,
    };
    perSite.set(device.siteId, site);
    site.devices += 1;
    const latest = device.latest;
    if (latest === undefined || nowMs - latest.atMs > input.silentAfterMs) {
      attention.push({
        deviceId: device.deviceId,
        siteId: device.siteId,
        reason: 'silent',
        at: latest ? iso(latest.atMs) : undefined,
      });
      continue;
    }
    fresh.set(device.deviceId, latest);
    snapshotMs = Math.max(snapshotMs ?? latest.atMs, latest.atMs);
    site.reporting += 1;
    addSample(power, latest);
    addSample(site, latest);
    const stored = (latest.socPercent / 100) * device.capacityKwh;
    storedKwh += stored;
    capacityKwh += device.capacityKwh;
    site.storedKwh += stored;
    site.capacityKwh += device.capacityKwh;
    const band = socBandOf(latest.socPercent);
    socBands[band] = (socBands[band] ?? 0) + 1;
  }
  for (const device of input.verdicts) {
    const newest = device.verdicts[0];
    if (newest === undefined || nowMs - newest.endMs > input.attentionForMs) continue;
    const repeated = isRepeatedlyNotFollowing(device.verdicts.map((entry) => entry.verdict));
    if (repeated || newest.verdict === 'notFollowing' || newest.verdict === 'noData')
      attention.push({
        deviceId: device.deviceId,
        siteId: device.siteId,
        reason: repeated
          ? 'repeatedlyNotFollowing'
          : newest.verdict === 'noData'
            ? 'noData'
            : 'notFollowing',
        commandId: newest.commandId,
        at: iso(newest.endMs),
      });
  }
  const sites = [...perSite.entries()]
    .map(([siteId, site]): FleetSiteNow => {
      const known = sitesById.get(siteId);
      return {
        siteId,
        siteName: known?.siteName,
        timeZone: known?.timeZone,
        devices: site.devices,
        reporting: site.reporting,
        dischargingW: site.dischargingW,
        chargingW: site.chargingW,
        pvW: site.pvW,
        gridImportW: site.gridImportW,
        gridExportW: site.gridExportW,
        socPercent: site.capacityKwh > 0 ? (site.storedKwh / site.capacityKwh) * 100 : undefined,
      };
    })
    .sort(
      (a, b) =>
        b.dischargingW + b.chargingW - (a.dischargingW + a.chargingW) ||
        a.siteId.localeCompare(b.siteId),
    );
  const running = input.running
    .filter((event) => event.startMs <= nowMs && nowMs < event.endMs)
    .map((event): FleetEventNow => {
      let measuredW = 0;
      let measuredDevices = 0;
      for (const deviceId of event.deviceIds) {
        const sample = fresh.get(deviceId);
        if (sample === undefined) continue;
        measuredW += sample.batteryPowerW;
        measuredDevices += 1;
      }
      return {
        kind: event.kind,
        id: event.id,
        batchCommandId: event.batchCommandId,
        commandId: event.commandId,
        siteId: event.siteId,
        startTime: iso(event.startMs),
        endTime: iso(event.endMs),
        devices: event.deviceIds.length,
        commandedW: event.commandedW,
        measuredW,
        measuredDevices,
      };
    })
    .sort((a, b) => a.endTime.localeCompare(b.endTime));
  // One line per device, a verdict's before silence: it says more of what went wrong.
  const withVerdict = new Set(
    attention.filter((line) => line.reason !== 'silent').map((line) => line.deviceId),
  );
  const lines = attention.filter(
    (line) => line.reason !== 'silent' || !withVerdict.has(line.deviceId),
  );
  // Verdicts first, then silent devices; newest first within each.
  lines.sort(
    (a, b) =>
      Number(a.reason === 'silent') - Number(b.reason === 'silent') ||
      (b.at ?? '').localeCompare(a.at ?? '') ||
      a.deviceId.localeCompare(b.deviceId),
  );
  return {
    generatedAt: iso(nowMs),
    snapshotAt: snapshotMs === undefined ? undefined : iso(snapshotMs),
    devices: {
      total: input.devices.length,
      reporting: fresh.size,
      silent: input.devices.length - fresh.size,
    },
    power,
    energy: { storedKwh, capacityKwh },
    socBands,
    sites: sites.slice(0, FLEET_PICTURE_LIMIT),
    running,
    attention: lines.slice(0, FLEET_PICTURE_LIMIT),
    counts: { sites: sites.length, attention: lines.length },
  };
}

/** A device's power ratings, W (positive), to clip a commanded power to what it can give. */
export interface DeviceRatings {
  maxChargePowerW: number;
  maxDischargePowerW: number;
}

/**
 * What runs now, from the overview's facts: each batch whose window holds `nowMs` and that was not
 * cancelled, and each single command (not of a batch) executing now or due to be; its commanded
 * power is its target battery power clipped to each device's ratings (unknown ratings clip
 * nothing), 0 for a command of limits only.
 */
export function runningEventsOf(
  facts: { batches: readonly BatchFact[]; commands: readonly CommandFact[] },
  nowMs: number,
  ratingsOf: (deviceId: string) => DeviceRatings | undefined,
): RunningEvent[] {
  const clipped = (deviceId: string, targetW: number | undefined) => {
    if (targetW === undefined) return 0;
    const ratings = ratingsOf(deviceId);
    if (!ratings) return targetW;
    return Math.min(ratings.maxDischargePowerW, Math.max(-ratings.maxChargePowerW, targetW));
  };
  const holdsNow = (startTime: string | undefined, endTime: string | undefined) => {
    const startMs = Date.parse(startTime ?? '');
    const endMs = Date.parse(endTime ?? '');
    return startMs <= nowMs && nowMs < endMs ? { startMs, endMs } : undefined;
  };
  const events: RunningEvent[] = [];
  for (const batch of facts.batches) {
    const window = holdsNow(batch.startTime, batch.endTime);
    if (!window || batch.cancelled) continue;
    const targetW = batch.powerControl?.targetBatteryPowerW;
    events.push({
      kind: 'batch',
      id: batch.ledgerEntryId,
      batchCommandId: batch.batchCommandId,
      ...window,
      deviceIds: batch.deviceIds,
      commandedW: batch.deviceIds.reduce((sum, deviceId) => sum + clipped(deviceId, targetW), 0),
    });
  }
  for (const command of facts.commands) {
    const window = holdsNow(command.startTime, command.endTime);
    const over = command.status === 'completed' || command.status === 'cancelled';
    if (!window || over || command.refusal !== undefined || command.batchCommandId !== undefined)
      continue;
    events.push({
      kind: 'command',
      id: command.ledgerEntryId ?? command.commandId ?? command.deviceId,
      commandId: command.commandId,
      ...window,
      deviceIds: [command.deviceId],
      commandedW: clipped(command.deviceId, command.powerControl?.targetBatteryPowerW),
    });
  }
  return events;
}
