import { offsetMinutes, parseUtcOffset } from '#domain/site-clock.ts';
import type { FixtureDevice } from '../fixtures/fixture-types.ts';
import { MINUTE_MS, type Span } from '../model/physics.ts';
import { energyPoint, toDeviceTelemetry } from '../model/telemetry-record.ts';
import { SandboxError } from '../sandbox-error.ts';
import { MAX_HISTORY_RANGE_MS } from '../vendor/schemas.ts';
import type {
  Alarm,
  AlarmList,
  AlarmQuery,
  ConfigurationUpdate,
  DeviceConfiguration,
  DeviceEnergyStatistics,
  DeviceTelemetry,
  DeviceTelemetryHistory,
  EnergyQuery,
  LatestDataRequest,
  TelemetryHistoryQuery,
} from '../vendor/telemetry-schemas.ts';
import { takeBatchSlots } from './batch-commands.ts';
import type { ClientIdentity } from './client-identity.ts';
import { deviceForCall, deviceIfYours } from './device-access.ts';
import type { StateChange } from './persistence.ts';
import type { StateMemory } from './state-memory.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const minuteOf = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/** `undefined` when the device has sent no sample (offline since before the model's origin). */
function latestOf(memory: StateMemory, device: FixtureDevice): DeviceTelemetry | undefined {
  const sample = memory.telemetry.latest(device, memory.clock.now());
  return sample && toDeviceTelemetry(device, sample);
}

/**
 * `GET /devices/{deviceId}/latestData` (docs/upstream.md, Telemetry): the last sample at or
 * before now; an offline device's last sample is its last before it went. @throws SandboxError
 * 404 not found or not yours, or no sample ever; RateLimitError 429.
 */
export function latestData(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
): DeviceTelemetry {
  const device = deviceForCall(memory, client, deviceId);
  const latest = latestOf(memory, device);
  if (!latest) throw new SandboxError('NOT_FOUND', `Device ${deviceId} has sent no telemetry yet`);
  return latest;
}

/**
 * `POST /devices/latestData/query`, counted as a batch is (docs/upstream.md, Rate limit): any
 * device not found or not yours refuses the whole query (404, naming them, spending nothing);
 * a device over the limit is left out of the answer; every device over it is 429. A device that
 * has sent no sample is left out too. In request order.
 */
export function latestDataOf(
  memory: StateMemory,
  client: ClientIdentity,
  request: LatestDataRequest,
): DeviceTelemetry[] {
  const devices = request.devices.map((id) => ({
    id,
    device: deviceIfYours(memory.catalog, memory.bindings, client, id),
  }));
  const missing = devices.filter(({ device }) => !device).map(({ id }) => id);
  if (missing.length > 0)
    throw new SandboxError(
      'NOT_FOUND',
      `devices: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not found, or their sites are not bound to this client`,
    );
  const refused = new Set(
    takeBatchSlots(memory, client, request.devices, memory.clock.now()).map((d) => d.deviceId),
  );
  return devices.flatMap(({ id, device }) => {
    if (!device || refused.has(id)) return [];
    const latest = latestOf(memory, device);
    return latest ? [latest] : [];
  });
}

/**
 * `GET /devices/{deviceId}/historicalData`: the samples with `startTime <= timestamp <= endTime`
 * (and at most now), oldest first, paged; gaps have no samples and count in no total.
 * @throws SandboxError 404; RateLimitError 429.
 */
export function telemetryHistory(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  query: TelemetryHistoryQuery,
): DeviceTelemetryHistory {
  const device = deviceForCall(memory, client, deviceId);
  const nowMs = memory.clock.now();
  const grid = memory.telemetry.sampleGrid(
    device,
    Date.parse(query.startTime),
    Date.parse(query.endTime),
    nowMs,
  );
  const times = pageOfTimes(grid.runs, grid.periodMs, (query.page - 1) * query.size, query.size);
  const data = memory.telemetry
    .samples(device, times, grid.periodMs, nowMs)
    .map((sample) => toDeviceTelemetry(device, sample));
  return { deviceId, total: grid.total, page: query.page, size: query.size, data };
}

/** The `count` sample times after skipping `skip`, over inclusive runs of multiples of `periodMs`. */
export function pageOfTimes(
  runs: readonly Span[],
  periodMs: number,
  skip: number,
  count: number,
): number[] {
  const times: number[] = [];
  let toSkip = skip;
  for (const run of runs) {
    const inRun = (run.toMs - run.fromMs) / periodMs + 1;
    if (toSkip >= inRun) {
      toSkip -= inRun;
      continue;
    }
    for (
      let t = run.fromMs + toSkip * periodMs;
      t <= run.toMs && times.length < count;
      t += periodMs
    )
      times.push(t);
    toSkip = 0;
    if (times.length >= count) break;
  }
  return times;
}

/** Epoch ms of 00:00 of a `YYYY-MM-DD` (year, month, day) at a site `offset` minutes east. */
const localMidnightMs = (year: number, month: number, day: number, offset: number) =>
  Date.UTC(year, month - 1, day) - offset * MINUTE_MS;

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * `GET /devices/{deviceId}/energy`: per local day, month or year of the site, from `startDate`
 * to `endDate` inclusive, the energy counted in it. Periods wholly before the model's origin or
 * after now are left out; the first and the current one count what lies within.
 * @throws SandboxError 404; 400 when `siteId` is not the device's site; RateLimitError 429.
 */
export function energy(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  query: EnergyQuery,
): DeviceEnergyStatistics {
  const device = deviceForCall(memory, client, deviceId);
  if (query.siteId !== device.siteId)
    throw new SandboxError(
      'INVALID_REQUEST',
      `Invalid query: siteId: ${query.siteId} is not the site of device ${deviceId}`,
    );
  const site = memory.catalog.site(device.siteId);
  const offset = offsetMinutes(parseUtcOffset(site?.timezone ?? 'UTC') ?? '+00:00');
  const [sy, sm, sd] = query.startDate.split('-').map(Number) as [number, number, number];
  const [ey, em, ed] = query.endDate.split('-').map(Number) as [number, number, number];
  const rangeStart = localMidnightMs(sy, sm, sd, offset);
  const rangeEnd = localMidnightMs(ey, em, ed + 1, offset);
  const periods: { date: string; fromMs: number; toMs: number }[] = [];
  if (query.period === 'day')
    for (let day = 0; localMidnightMs(sy, sm, sd + day, offset) < rangeEnd; day += 1) {
      const date = new Date(Date.UTC(sy, sm - 1, sd + day));
      periods.push({
        date: date.toISOString().slice(0, 10),
        fromMs: localMidnightMs(sy, sm, sd + day, offset),
        toMs: localMidnightMs(sy, sm, sd + day + 1, offset),
      });
    }
  else if (query.period === 'month')
    for (let m = 0; localMidnightMs(sy, sm + m, 1, offset) < rangeEnd; m += 1) {
      const first = new Date(Date.UTC(sy, sm - 1 + m, 1));
      periods.push({
        date: `${first.getUTCFullYear()}-${pad(first.getUTCMonth() + 1)}`,
        fromMs: localMidnightMs(sy, sm + m, 1, offset),
        toMs: localMidnightMs(sy, sm + m + 1, 1, offset),
      });
    }
  else
    for (let y = sy; y <= ey; y += 1)
      periods.push({
        date: String(y),
        fromMs: localMidnightMs(y, 1, 1, offset),
        toMs: localMidnightMs(y + 1, 1, 1, offset),
      });

  const nowMs = memory.clock.now();
  const lastMs = minuteOf(nowMs);
  const originMs = memory.telemetry.modelOriginMs;
  const input = memory.telemetry.modelInput(device);
  const data = periods.flatMap(({ date, fromMs, toMs }) => {
    const from = Math.max(fromMs, rangeStart, originMs);
    const to = Math.min(toMs, rangeEnd, lastMs);
    if (to <= from) return [];
    const start = memory.telemetry.stateAt(device, input, from, nowMs);
    const end = memory.telemetry.stateAt(device, input, to, nowMs);
    return [energyPoint(date, start, end)];
  });
  return {
    siteId: device.siteId,
    deviceId,
    period: query.period,
    startDate: query.startDate,
    endDate: query.endDate,
    data,
  };
}

const FAULT_ALARM = {
  alarmLevel: 'fault',
  alarmCode: 'BMS_FAULT',
  alarmName: 'Battery system fault',
} as const;
const OFFLINE_ALARM = {
  alarmLevel: 'alarm',
  alarmCode: 'COMM_LOST',
  alarmName: 'Communication lost',
} as const;

/** Every alarm of a device that has begun by `nowMs`, newest first (docs/upstream.md, Telemetry). */
export function deviceAlarms(
  memory: StateMemory,
  device: FixtureDevice,
  nowMs: number,
): (Alarm & Span)[] {
  const originMs = memory.telemetry.modelOriginMs;
  const alarm = (kind: typeof FAULT_ALARM | typeof OFFLINE_ALARM, span: Span): Alarm & Span => {
    const fromMs = Math.max(span.fromMs, originMs);
    const resolved = span.toMs <= nowMs;
    return {
      ...kind,
      status: resolved ? 'resolved' : 'active',
      startTime: iso(fromMs),
      ...(resolved ? { endTime: iso(span.toMs) } : {}),
      fromMs,
      toMs: span.toMs,
    };
  };
  return [
    ...memory.telemetry.faultSpans(device).map((span) => alarm(FAULT_ALARM, span)),
    ...memory.telemetry.gaps(device).map((span) => alarm(OFFLINE_ALARM, span)),
  ]
    .filter((a) => a.fromMs <= nowMs)
    .sort((a, b) => b.fromMs - a.fromMs);
}

/**
 * `GET /devices/{deviceId}/alarms`: a fault alarm while the device is faulted, a
 * "communication lost" alarm while it sends no samples; those overlapping `[startTime, endTime)`
 * (default: the 30 days before now), filtered, newest first, paged. @throws SandboxError 404;
 * RateLimitError 429.
 */
export function alarms(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  query: AlarmQuery,
): AlarmList {
  const device = deviceForCall(memory, client, deviceId);
  const nowMs = memory.clock.now();
  // Without an end, every alarm begun by now counts, one begun this instant too.
  const endMs = query.endTime === undefined ? Infinity : Date.parse(query.endTime);
  const startMs =
    query.startTime === undefined
      ? (query.endTime === undefined ? nowMs : endMs) - MAX_HISTORY_RANGE_MS
      : Date.parse(query.startTime);
  const matching = deviceAlarms(memory, device, nowMs).filter(
    (a) =>
      a.fromMs < endMs &&
      a.toMs > startMs &&
      (query.alarmLevel === undefined || a.alarmLevel === query.alarmLevel) &&
      (query.status === undefined || a.status === query.status),
  );
  const from = (query.page - 1) * query.size;
  return {
    deviceId,
    total: matching.length,
    page: query.page,
    size: query.size,
    alarms: matching.slice(from, from + query.size).map(({ fromMs: _f, toMs: _t, ...a }) => a),
  };
}

/** `GET /devices/{deviceId}/configuration`: every field. @throws SandboxError 404; 429. */
export function configuration(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
): DeviceConfiguration {
  return memory.telemetry.configurationOf(deviceForCall(memory, client, deviceId));
}

/**
 * `PUT /devices/{deviceId}/configuration`: the fields sent replace those in force from now on
 * (omitted ones stay), written through. @throws SandboxError 404; 400 when the charge cut-off
 * would be below the discharge cut-off; RateLimitError 429.
 */
export function setConfiguration(
  memory: StateMemory,
  client: ClientIdentity,
  deviceId: string,
  update: ConfigurationUpdate,
  change: StateChange,
): { set: Record<string, unknown>[]; nowMs: number } {
  const device = deviceForCall(memory, client, deviceId);
  const current = memory.telemetry.configurationOf(device);
  const sent = Object.fromEntries(
    Object.entries(update).filter(([, value]) => value !== undefined),
  ) as Partial<DeviceConfiguration>;
  const next = { ...current, ...sent };
  if (next.chargeCutoffSocPercent < next.dischargeCutoffSocPercent)
    throw new SandboxError(
      'INVALID_REQUEST',
      `Invalid body: chargeCutoffSocPercent (${next.chargeCutoffSocPercent}) must not be below dischargeCutoffSocPercent (${next.dischargeCutoffSocPercent})`,
    );
  const nowMs = memory.clock.now();
  change.deviceConfigurations.push({ deviceId, fromMs: nowMs, configuration: next });
  return { set: Object.entries(sent).map(([field, value]) => ({ [field]: value })), nowMs };
}
