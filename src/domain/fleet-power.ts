import type { PowerControl } from './power-control.ts';
import { energyWh, type TelemetrySample } from './telemetry.ts';
import { limitsInForce, type VerdictInput } from './verdict.ts';
import {
  emptyVerdictCounts,
  rowsOfColumns,
  type CommandVerdictRecord,
  type EventVerdictsAnswer,
} from './verdict-answer.ts';

/**
 * Fleet figures from devices' telemetry (docs/verification.md, Fleet figures): the commanded
 * against delivered power of an event over its window, and the power a fleet can give for a
 * duration from a snapshot of its latest samples.
 */

/** One device of an event: its samples and the power it was commanded over its window. */
export interface EventDevice {
  samples: readonly TelemetrySample[];
  /** Signed like battery power (positive discharges); already clipped to the device's limits. */
  commandedW: number;
  fromMs: number;
  toMs: number;
}

/** One step of an event's curve: sums over the devices, W. */
export interface EventPowerPoint {
  atMs: number;
  commandedW: number;
  deliveredW: number;
  /** Devices whose sample of this step was measured; the rest add nothing to `deliveredW`. */
  measuredDevices: number;
}

/**
 * The event's commanded and delivered power, one point per `stepMs` from `fromMs` to `toMs`
 * (excluded): a device adds its commanded power to each step its window covers, and the battery
 * power of its sample of the step (stamped at the step's end, or within it) to `deliveredW`. O(devices x samples).
 *
 * @throws RangeError for a step of 0 ms or less.
 */
export function eventPowerCurve(
  devices: readonly EventDevice[],
  fromMs: number,
  toMs: number,
  stepMs: number,
): EventPowerPoint[] {
  if (stepMs <= 0) throw new RangeError('a curve needs a step longer than 0 ms');
  const steps = Math.max(0, Math.ceil((toMs - fromMs) / stepMs));
  const points: EventPowerPoint[] = Array.from({ length: steps }, (_, index) => ({
    atMs: fromMs + index * stepMs,
    commandedW: 0,
    deliveredW: 0,
    measuredDevices: 0,
  }));
  const seen = new Uint8Array(steps);
  for (const device of devices) {
    seen.fill(0);
    for (const point of points)
      if (point.atMs >= device.fromMs && point.atMs < device.toMs)
        point.commandedW += device.commandedW;
    for (const sample of device.samples) {
      // A sample stamped at the end of its period counts for the step that period began.
      const index = Math.ceil((sample.atMs - fromMs) / stepMs) - 1;
      const point = points[index];
      if (point === undefined || seen[index] === 1) continue;
      seen[index] = 1;
      point.deliveredW += sample.batteryPowerW;
      point.measuredDevices += 1;
    }
  }
  return points;
}

/** What a snapshot says of one device, and what it is allowed to do. */
export interface SnapshotDevice {
  sample: TelemetrySample;
  capacityKwh: number;
  maxChargePowerW: number;
  maxDischargePowerW: number;
  /** Percent; the battery stops there. */
  dischargeCutoffSocPercent: number;
  chargeCutoffSocPercent: number;
  /** W the site may export or import; absent = unlimited. */
  siteExportLimitW?: number | undefined;
  siteImportLimitW?: number | undefined;
}

export interface DeliverablePower {
  /** Signed like battery power: what the device can hold for the whole duration, W. */
  deliverableW: number;
  /**
   * Signed like the request: the most its power limit and its site limit let it give that way
   * now, W (0 when its site's own load already takes the whole limit).
   */
  capW: number;
  /** How long it can hold the requested power, ms (Infinity when the power is 0). */
  lastsMs: number;
  /** Whether it holds the requested power for the whole duration. */
  lastsWindow: boolean;
  /**
   * What keeps it from holding the requested power for the whole duration: the energy between its
   * state of charge and the cut-off, its power limit, or its site's limit; absent when it lasts.
   */
  limitedBy?: 'stateOfCharge' | 'powerLimit' | 'siteLimit' | undefined;
}

/**
 * What a device can give for `durationMs` at `requestedW` (positive discharges), from its
 * snapshot: the usable energy between its state of charge and the cut-off of that direction,
 * spread over the duration, capped by its power limits and by the site limit of that direction
 * (the site's load less its PV, read from the snapshot's balance, is served first). The sandbox's
 * model applies site limits to each device's own meter (src/sandbox/README.md, Telemetry model),
 * as this does.
 */
export function deliverableOf(
  device: SnapshotDevice,
  requestedW: number,
  durationMs: number,
): DeliverablePower {
  const { sample } = device;
  const discharging = requestedW >= 0;
  const socRoomPercent = discharging
    ? sample.socPercent - device.dischargeCutoffSocPercent
    : device.chargeCutoffSocPercent - sample.socPercent;
  const usableWh = (Math.max(0, socRoomPercent) / 100) * device.capacityKwh * 1000;
  // The site's own need, load less PV, from the sample's balance: grid = load - pv - battery.
  const netLoadW = sample.gridPowerW + sample.batteryPowerW;
  const ratedW = discharging ? device.maxDischargePowerW : device.maxChargePowerW;
  const siteCapW = discharging
    ? device.siteExportLimitW === undefined
      ? Infinity
      : netLoadW + device.siteExportLimitW
    : device.siteImportLimitW === undefined
      ? Infinity
      : device.siteImportLimitW - netLoadW;
  const powerCapW = Math.min(ratedW, siteCapW);
  const energyCapW = durationMs > 0 ? usableWh / (durationMs / 3_600_000) : Infinity;
  const deliverableAbsW = Math.max(0, Math.min(powerCapW, energyCapW));
  const requestedAbsW = Math.abs(requestedW);
  const lastsMs = requestedAbsW === 0 ? Infinity : (usableWh / requestedAbsW) * 3_600_000;
  const lastsWindow = lastsMs >= durationMs && requestedAbsW <= powerCapW;
  const sign = discharging ? 1 : -1;
  const limitedBy = lastsWindow
    ? undefined
    : requestedAbsW > powerCapW
      ? siteCapW < ratedW
        ? 'siteLimit'
        : 'powerLimit'
      : 'stateOfCharge';
  return {
    deliverableW: sign * deliverableAbsW,
    capW: sign * Math.max(0, powerCapW),
    lastsMs,
    lastsWindow,
    ...(limitedBy ? { limitedBy } : {}),
  };
}

/**
 * The cut-offs a device's configuration has when never changed, percent (docs/upstream.md,
 * Telemetry: Configuration): a snapshot of a device whose configuration the BFF never read counts
 * its energy down to these.
 */
export const DEFAULT_CUTOFFS = { chargeCutoffSocPercent: 100, dischargeCutoffSocPercent: 10 };

/**
 * A device's snapshot as {@link deliverableOf} takes it: its sample and ratings, under the
 * cut-offs and site limits the command would run under (its own, else the device's configured
 * ones, `limitsInForce`), cut-offs the vendor's defaults when neither is known. Site limits
 * neither set nor known count as none.
 */
export function snapshotDeviceOf(
  sample: TelemetrySample,
  ratings: { capacityKwh: number; maxChargePowerW: number; maxDischargePowerW: number },
  control: Partial<PowerControl>,
  configured: Pick<VerdictInput, 'cutoffs' | 'siteLimits'>,
): SnapshotDevice {
  const limits = limitsInForce(control, configured);
  return {
    sample,
    ...ratings,
    chargeCutoffSocPercent: limits.chargeCutoffSocPercent ?? DEFAULT_CUTOFFS.chargeCutoffSocPercent,
    dischargeCutoffSocPercent:
      limits.dischargeCutoffSocPercent ?? DEFAULT_CUTOFFS.dischargeCutoffSocPercent,
    siteImportLimitW: limits.siteImportLimitW,
    siteExportLimitW: limits.siteExportLimitW,
  };
}

/**
 * A snapshot before sending reads a device again only when its last read is older than this, ms:
 * two operators checking the same devices a minute apart, or the five-minute fleet snapshot
 * (docs/verification.md, Fleet picture), spend none of their calls twice.
 */
export const SNAPSHOT_FRESH_MS = 3 * 60_000;

/**
 * A latest sample older than this does not count as measured, ms: two of the vendor's coarser
 * sampling periods (300 s) and a minute, so a device sampling every five minutes still counts.
 */
export const SNAPSHOT_RECENT_MS = 11 * 60_000;

/** Whether a device last read at `readAtMs` (epoch ms; undefined: never) is read again now. */
export function needsSnapshotRead(readAtMs: number | undefined, nowMs: number): boolean {
  return readAtMs === undefined || nowMs - readAtMs > SNAPSHOT_FRESH_MS;
}

/** Whether a latest sample is recent enough to count as measured at `nowMs`. */
export function isRecentSample(sample: TelemetrySample | undefined, nowMs: number): boolean {
  return sample !== undefined && nowMs - sample.atMs <= SNAPSHOT_RECENT_MS;
}

/** One device of a selection before sending: its snapshot, or none when not measured. */
export interface FleetDeliverableDevice {
  deviceId: string;
  snapshot?: SnapshotDevice | undefined;
}

/** A device that cannot hold the requested power for the whole duration. */
export interface CannotLastDevice {
  deviceId: string;
  /** How long its energy holds the requested power, ms. */
  lastsMs: number;
  /** What it can hold for the whole duration, signed like battery power, W. */
  deliverableW: number;
  /** The most its power limit and site limit let it give now, signed like the request, W. */
  capW: number;
  limitedBy: NonNullable<DeliverablePower['limitedBy']>;
}

export interface FleetDeliverable {
  /** The requested power times the devices, signed like battery power, W. */
  commandedW: number;
  /**
   * What the measured devices can hold together for the whole duration, each at most the
   * requested power, signed like battery power, W. A device not measured adds nothing.
   */
  deliverableW: number;
  measured: number;
  /** Shortest first. */
  cannotLast: CannotLastDevice[];
  /** In the selection's order. */
  notMeasured: string[];
}

/**
 * The power a selection can give for `durationMs` at `requestedW` each (docs/verification.md,
 * Deliverable power before sending): each measured device's {@link deliverableOf}, at most the
 * requested power (a device is commanded that power, never more), summed; the devices that cannot
 * hold it for the whole duration, shortest first, and those not measured.
 */
export function fleetDeliverableOf(
  devices: readonly FleetDeliverableDevice[],
  requestedW: number,
  durationMs: number,
): FleetDeliverable {
  const requestedAbsW = Math.abs(requestedW);
  const sign = requestedW >= 0 ? 1 : -1;
  let deliverableAbsW = 0;
  let measured = 0;
  const cannotLast: CannotLastDevice[] = [];
  const notMeasured: string[] = [];
  for (const { deviceId, snapshot } of devices) {
    if (!snapshot) {
      notMeasured.push(deviceId);
      continue;
    }
    measured += 1;
    const power = deliverableOf(snapshot, requestedW, durationMs);
    deliverableAbsW += Math.min(requestedAbsW, Math.abs(power.deliverableW));
    if (!power.lastsWindow && power.limitedBy)
      cannotLast.push({
        deviceId,
        lastsMs: power.lastsMs,
        deliverableW: power.deliverableW,
        capW: power.capW,
        limitedBy: power.limitedBy,
      });
  }
  cannotLast.sort((a, b) => a.lastsMs - b.lastsMs || a.deviceId.localeCompare(b.deviceId));
  return {
    commandedW: requestedW * devices.length,
    deliverableW: sign * deliverableAbsW,
    measured,
    cannotLast,
    notMeasured,
  };
}

/** Total energy of a curve, Wh: the sum of its delivered power over its steps. */
export function deliveredEnergyWhOf(points: readonly EventPowerPoint[], stepMs: number): number {
  return points.reduce((sum, point) => sum + energyWh(point.deliveredW, stepMs), 0);
}

/**
 * An event that gave less than this share of its commanded energy is notified to whoever sent it
 * (docs/verification.md, Notifications), percent.
 */
export const EVENT_DELIVERY_THRESHOLD_PERCENT = 80;

/**
 * Delivered energy as a whole percentage of commanded energy, both signed like battery power: a
 * charge commanded and a charge given are 100%, giving the other way counts as 0%. Undefined when
 * nothing was commanded.
 */
export function deliveredPercentOf(commandedWh: number, deliveredWh: number): number | undefined {
  if (commandedWh === 0) return undefined;
  return Math.max(0, Math.round((deliveredWh / commandedWh) * 100));
}

/**
 * An event's answer from its devices' verdict records (docs/verification.md, Fleet figures): the
 * counts, the energies, and the curve over the span of the judged windows, one point per the
 * finest sampling period among them. A device's commanded power is its commanded energy over its
 * judged window (its target clipped to its ratings).
 *
 * @param knownCommands the event's device commands the BFF knows, verdict or not.
 */
export function eventVerdictsOf(
  records: readonly CommandVerdictRecord[],
  knownCommands: number,
): EventVerdictsAnswer {
  const counts = emptyVerdictCounts();
  let commandedEnergyWh = 0;
  let deliveredEnergyWh = 0;
  const devices: EventDevice[] = [];
  let fromMs = Infinity;
  let toMs = -Infinity;
  let stepMs = Infinity;
  for (const record of records) {
    const { result } = record;
    counts[result.verdict] += 1;
    commandedEnergyWh += result.commandedEnergyWh ?? 0;
    deliveredEnergyWh += result.deliveredEnergyWh ?? 0;
    const judgedFromMs = Date.parse(record.judgedFrom);
    const judgedToMs = Date.parse(record.judgedTo);
    if (judgedToMs <= judgedFromMs) continue;
    fromMs = Math.min(fromMs, judgedFromMs);
    toMs = Math.max(toMs, judgedToMs);
    stepMs = Math.min(stepMs, record.samplingPeriodMs);
    devices.push({
      samples: record.samples ? rowsOfColumns(record.samples) : [],
      commandedW: ((result.commandedEnergyWh ?? 0) * 3_600_000) / (judgedToMs - judgedFromMs),
      fromMs: judgedFromMs,
      toMs: judgedToMs,
    });
  }
  const step = Number.isFinite(stepMs) ? stepMs : 60_000;
  const curve = devices.length === 0 ? [] : eventPowerCurve(devices, fromMs, toMs, step);
  const deliveredPercent = deliveredPercentOf(commandedEnergyWh, deliveredEnergyWh);
  return {
    devices: Math.max(knownCommands, records.length),
    pending: Math.max(0, knownCommands - records.length),
    counts,
    commandedEnergyWh,
    deliveredEnergyWh,
    ...(deliveredPercent === undefined ? {} : { deliveredPercent }),
    stepMs: step,
    curve,
    verdicts: records.map((record) => ({
      deviceId: record.deviceId,
      commandId: record.commandId,
      ...(record.batchCommandId ? { batchCommandId: record.batchCommandId } : {}),
      verdict: record.result.verdict,
      commandedEnergyWh: record.result.commandedEnergyWh,
      deliveredEnergyWh: record.result.deliveredEnergyWh,
      coverage: record.result.coverage,
    })),
  };
}
