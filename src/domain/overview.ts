import type { z } from 'zod';
import { BatchRequestSchema } from './batch.ts';
import {
  DeviceCommandSchema,
  isFinalStatus,
  type CancellationReason,
  type CommandStatus,
} from './command.ts';
import type { Site } from './device.ts';
import { isFinalJobState, type FleetJob } from './fleet-job.ts';
import type { LedgerEntry } from './ledger.ts';
import type { PowerControlSchema } from './power-control.ts';
import type {
  Overview,
  OverviewBatch,
  OverviewCommand,
  OverviewFleetJob,
  OverviewTrouble,
} from './overview-answer.ts';

export {
  OverviewBatchSchema,
  OverviewCommandSchema,
  OverviewFleetJobSchema,
  OverviewQuerySchema,
  OverviewSchema,
  OverviewTroubleSchema,
  type Overview,
  type OverviewBatch,
  type OverviewCommand,
  type OverviewFleetJob,
  type OverviewQuery,
  type OverviewTrouble,
} from './overview-answer.ts';

/**
 * The overview (docs/architecture.md, Overview), built from facts the BFF already holds: never one
 * vendor call per device per view (2 calls per device per minute, docs/upstream.md, Rate limit).
 */

/** Hours. */
export const OVERVIEW_UPCOMING_HOURS = 6;
/** Hours back for ended commands. */
export const OVERVIEW_RECENT_HOURS = 24;
/** `counts` holds the full number. */
export const OVERVIEW_SECTION_LIMIT = 100;

const HOUR_MS = 3_600_000;

/**
 * `status` absent: not read since sent; `refusal` in operator words (never created); `notFound`:
 * a batch's command never found once its window ended (docs/decisions/006).
 */
export interface CommandFact {
  deviceId: string;
  commandId?: string | undefined;
  batchCommandId?: string | undefined;
  ledgerEntryId?: string | undefined;
  powerControl?: z.infer<typeof PowerControlSchema> | undefined;
  startTime?: string | undefined;
  endTime?: string | undefined;
  status?: CommandStatus | undefined;
  cancelReason?: CancellationReason | undefined;
  refusal?: string | undefined;
  notFound?: true | undefined;
  endedAt?: string | undefined;
}

export interface BatchFact {
  ledgerEntryId: string;
  batchCommandId?: string | undefined;
  startTime: string;
  endTime: string;
  powerControl?: z.infer<typeof PowerControlSchema> | undefined;
  deviceIds: string[];
  found: number;
  confirming: number;
  notFound: number;
  cancelled: boolean;
  /** Final, never found, or site unbound, as its batch page counts them. Absent: not counted. */
  over?: number | undefined;
}

export interface OverviewFacts {
  commands: CommandFact[];
  batches: BatchFact[];
  fleetJobs: FleetJob[];
  sites: Site[];
}

export type CommandSection = 'executing' | 'upcoming' | 'attention' | 'cancelledByOperator';

/**
 * A refusal, a batch command never found, or a cancellation for any reason but `manuallyCancel`
 * (device command API, section 3.2). Operator cancels, undos, replaces and fleet aborts all cancel
 * that way (docs/upstream.md, Lifecycle): wanted, so no alarm.
 */
export function needsAttention(
  command: Pick<CommandFact, 'refusal' | 'notFound' | 'status' | 'cancelReason'>,
): boolean {
  if (command.refusal !== undefined || command.notFound === true) return true;
  return command.status === 'cancelled' && command.cancelReason !== 'manuallyCancel';
}

/**
 * Ended within {@link OVERVIEW_RECENT_HOURS}: `attention` or `cancelledByOperator`; completed:
 * none. Unread or `received` counts as `executing` inside its window (the vendor starts it at its
 * start time, docs/upstream.md, Lifecycle). Windows are `[startTime, endTime)`.
 */
export function sectionOf(command: CommandFact, nowMs: number): CommandSection | undefined {
  if (
    command.refusal !== undefined ||
    command.notFound === true ||
    command.status === 'cancelled'
  ) {
    const endedMs = Date.parse(command.endedAt ?? '');
    if (!Number.isFinite(endedMs) || nowMs - endedMs > OVERVIEW_RECENT_HOURS * HOUR_MS)
      return undefined;
    return needsAttention(command) ? 'attention' : 'cancelledByOperator';
  }
  if (command.status === 'completed') return undefined;
  const startMs = Date.parse(command.startTime ?? '');
  const endMs = Date.parse(command.endTime ?? '');
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs) || endMs <= nowMs) return undefined;
  if (startMs <= nowMs) return 'executing';
  return startMs - nowMs <= OVERVIEW_UPCOMING_HOURS * HOUR_MS ? 'upcoming' : undefined;
}

/** `knownStatus` adds what the vendor last said of a command, when the BFF holds it. */
export function factsFromLedger(
  entries: readonly LedgerEntry[],
  knownStatus: (deviceId: string, commandId: string) => KnownStatus | undefined = () => undefined,
): Pick<OverviewFacts, 'commands' | 'batches'> {
  const commands = new Map<string, CommandFact>();
  const batches: BatchFact[] = [];
  const batchFound: {
    index: number;
    found: { deviceId: string; id: string }[];
    unbound: number;
  }[] = [];
  const cancelledBatches = new Set<string>();
  const cancels: { deviceId: string; commandId: string; at: string }[] = [];
  const key = (deviceId: string, commandId: string) => `${deviceId} ${commandId}`;
  for (const entry of entries) {
    const at = entry.completedAt ?? entry.createdAt;
    if (entry.kind === 'submit' && entry.deviceId) {
      const request = DeviceCommandSchema.safeParse(entry.request);
      const window = {
        powerControl: request.success ? request.data.powerControl : undefined,
        startTime: entry.startTime ?? (request.success ? request.data.startTime : undefined),
        endTime: entry.endTime ?? (request.success ? request.data.endTime : undefined),
      };
      if (entry.state === 'failed') {
        // A call that never left the BFF is no failure of the command (the operator was told).
        if (entry.outcome?.status === undefined) continue;
        commands.set(`entry ${entry.id}`, {
          deviceId: entry.deviceId,
          ledgerEntryId: entry.id,
          ...window,
          refusal: entry.outcome.error?.message ?? 'The vendor refused it.',
          endedAt: at,
        });
      } else if (entry.commandId) {
        commands.set(key(entry.deviceId, entry.commandId), {
          deviceId: entry.deviceId,
          commandId: entry.commandId,
          ledgerEntryId: entry.id,
          ...window,
        });
      }
    } else if (entry.kind === 'batch' && entry.state === 'succeeded' && entry.deviceIds) {
      const request = BatchRequestSchema.safeParse(entry.request);
      const startTime = entry.startTime ?? (request.success ? request.data.command.startTime : '');
      const endTime = entry.endTime ?? (request.success ? request.data.command.endTime : '');
      const powerControl = request.success ? request.data.command.powerControl : undefined;
      const found = entry.outcome?.commands ?? [];
      for (const command of found)
        commands.set(key(command.deviceId, command.id), {
          deviceId: command.deviceId,
          commandId: command.id,
          batchCommandId: entry.batchCommandId,
          ledgerEntryId: entry.id,
          powerControl,
          startTime,
          endTime,
        });
      const unconfirmed = entry.outcome?.unconfirmed ?? [];
      for (const device of unconfirmed)
        if (device.state === 'notFound')
          commands.set(`entry ${entry.id} ${device.deviceId}`, {
            deviceId: device.deviceId,
            batchCommandId: entry.batchCommandId,
            ledgerEntryId: entry.id,
            powerControl,
            startTime,
            endTime,
            notFound: true,
            endedAt: endTime,
          });
      const unbound = new Set((entry.outcome?.unbound ?? []).map((device) => device.deviceId));
      if (startTime && endTime)
        batchFound.push({
          index: batches.length,
          found: found.filter((command) => !unbound.has(command.deviceId)),
          unbound: unbound.size,
        });
      if (startTime && endTime)
        batches.push({
          ledgerEntryId: entry.id,
          batchCommandId: entry.batchCommandId,
          startTime,
          endTime,
          powerControl,
          deviceIds: entry.deviceIds,
          found: found.length,
          confirming: unconfirmed.filter((device) => device.state === 'confirming').length,
          notFound: unconfirmed.filter((device) => device.state === 'notFound').length,
          cancelled: false,
        });
    } else if (entry.kind === 'cancel' && entry.state === 'succeeded') {
      if (entry.deviceId && entry.commandId)
        cancels.push({ deviceId: entry.deviceId, commandId: entry.commandId, at });
    } else if (entry.kind === 'batchCancel' && entry.state === 'succeeded') {
      if (entry.batchCommandId) cancelledBatches.add(entry.batchCommandId);
      for (const result of entry.outcome?.results ?? [])
        if (result.success && result.commandId)
          cancels.push({ deviceId: result.deviceId, commandId: result.commandId, at });
    }
  }
  for (const cancel of cancels) {
    const command = commands.get(key(cancel.deviceId, cancel.commandId));
    commands.set(key(cancel.deviceId, cancel.commandId), {
      ...(command ?? { deviceId: cancel.deviceId, commandId: cancel.commandId }),
      status: 'cancelled',
      cancelReason: 'manuallyCancel',
      endedAt: cancel.at,
    });
  }
  for (const [id, command] of commands) {
    if (!command.commandId || command.status === 'cancelled') continue;
    const known = knownStatus(command.deviceId, command.commandId);
    if (known) commands.set(id, { ...command, ...known });
  }
  for (const { index, found, unbound } of batchFound) {
    const batch = batches[index];
    if (!batch) continue;
    const final = found.filter((command) => {
      const status = commands.get(key(command.deviceId, command.id))?.status;
      return status !== undefined && isFinalStatus(status);
    }).length;
    batch.over = final + unbound + batch.notFound;
  }
  for (const batch of batches)
    if (batch.batchCommandId && cancelledBatches.has(batch.batchCommandId)) batch.cancelled = true;
  return { commands: [...commands.values()], batches };
}

/** The status record's fields the overview uses. */
export interface KnownStatus {
  status: CommandStatus;
  cancelReason?: CancellationReason | undefined;
  endedAt?: string | undefined;
}

/** `nowMs` on the vendor's clock; each line carries its device's name, site and zone. */
export function buildOverview(
  facts: OverviewFacts,
  nowMs: number,
  region: Overview['region'],
): Overview {
  const homes = new Map<string, { site: Site; deviceName: string }>();
  for (const site of facts.sites)
    for (const device of site.devices)
      homes.set(device.deviceId, { site, deviceName: device.name });
  const placed = (command: CommandFact): OverviewCommand => {
    const home = homes.get(command.deviceId);
    return {
      ...withoutUndefined(command),
      ...(home
        ? {
            deviceName: home.deviceName,
            siteId: home.site.siteId,
            siteName: home.site.name,
            timeZone: home.site.timeZone,
          }
        : {}),
    } as OverviewCommand;
  };
  const sections: Record<CommandSection, CommandFact[]> = {
    executing: [],
    upcoming: [],
    attention: [],
    cancelledByOperator: [],
  };
  for (const command of facts.commands) {
    const section = sectionOf(command, nowMs);
    if (section) sections[section].push(command);
  }
  const byMs = (pick: (command: CommandFact) => string | undefined, sign = 1) => {
    return (a: CommandFact, b: CommandFact) =>
      sign * (Date.parse(pick(a) ?? '') - Date.parse(pick(b) ?? '')) ||
      a.deviceId.localeCompare(b.deviceId);
  };
  sections.executing.sort(byMs((command) => command.endTime));
  sections.upcoming.sort(byMs((command) => command.startTime));
  sections.attention.sort(byMs((command) => command.endedAt, -1));
  sections.cancelledByOperator.sort(byMs((command) => command.endedAt, -1));

  const batches = facts.batches
    .filter(
      (batch) =>
        !batch.cancelled &&
        Date.parse(batch.endTime) > nowMs &&
        (batch.over === undefined || batch.over < batch.deviceIds.length),
    )
    .sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime))
    .map((batch): OverviewBatch => {
      const sites = new Set(batch.deviceIds.map((deviceId) => homes.get(deviceId)?.site));
      const [site] = sites;
      return {
        ledgerEntryId: batch.ledgerEntryId,
        ...(batch.batchCommandId ? { batchCommandId: batch.batchCommandId } : {}),
        ...(sites.size === 1 && site
          ? { siteId: site.siteId, siteName: site.name, timeZone: site.timeZone }
          : {}),
        startTime: batch.startTime,
        endTime: batch.endTime,
        ...(batch.powerControl ? { powerControl: batch.powerControl } : {}),
        devices: batch.deviceIds.length,
        found: batch.found,
        confirming: batch.confirming,
        notFound: batch.notFound,
      };
    });

  const fleetJobs = facts.fleetJobs
    .filter((job) => !isFinalJobState(job.state))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
    .map((job): OverviewFleetJob => ({
      jobId: job.jobId,
      state: job.state as OverviewFleetJob['state'],
      command: job.command,
      createdAt: job.createdAt,
      ...(job.operatorName ? { operatorName: job.operatorName } : {}),
      progress: job.progress,
    }));

  const trouble: OverviewTrouble[] = [];
  for (const site of facts.sites) {
    const place = { siteId: site.siteId, siteName: site.name, timeZone: site.timeZone };
    if (site.online === false || site.faulted === true)
      trouble.push({ ...place, offline: site.online === false, faulted: site.faulted === true });
    for (const device of site.devices)
      if (device.online === false || device.faulted === true)
        trouble.push({
          ...place,
          deviceId: device.deviceId,
          deviceName: device.name,
          offline: device.online === false,
          faulted: device.faulted === true,
        });
  }

  const limit = <T>(lines: T[]) => lines.slice(0, OVERVIEW_SECTION_LIMIT);
  return {
    region,
    generatedAt: new Date(nowMs).toISOString(),
    upcomingHours: OVERVIEW_UPCOMING_HOURS,
    recentHours: OVERVIEW_RECENT_HOURS,
    executing: limit(sections.executing).map(placed),
    upcoming: limit(sections.upcoming).map(placed),
    attention: limit(sections.attention).map(placed),
    cancelledByOperator: limit(sections.cancelledByOperator).map(placed),
    batches: limit(batches),
    fleetJobs: limit(fleetJobs),
    trouble: limit(trouble),
    counts: {
      executing: sections.executing.length,
      upcoming: sections.upcoming.length,
      attention: sections.attention.length,
      cancelledByOperator: sections.cancelledByOperator.length,
      batches: batches.length,
      fleetJobs: fleetJobs.length,
      trouble: trouble.length,
    },
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
