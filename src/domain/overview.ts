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
 * The overview (docs/architecture.md, Overview): what an account's devices do now, what starts
 * soon, what ended lately (what needs attention apart from what operators cancelled), the
 * batches and fleet jobs under way, and the sites and devices offline or faulted. Built from facts the BFF already holds (never one vendor call
 * per device per view: the vendor allows 2 calls per device per minute, docs/upstream.md, Rate
 * limit), by the pure rules below.
 */

/** How far ahead "starts soon" looks, hours. */
export const OVERVIEW_UPCOMING_HOURS = 6;
/** How far back the ended commands (needing attention or cancelled by an operator) go, hours. */
export const OVERVIEW_RECENT_HOURS = 24;
/** Most lines one section answers; `counts` holds the full number. */
export const OVERVIEW_SECTION_LIMIT = 100;

const HOUR_MS = 3_600_000;

/**
 * One device command as a source knows it. `status` is the vendor's last known status (absent:
 * not read since it was sent); `refusal` says, in operator words, why the vendor refused it (it
 * was never created); `notFound` that it is a batch's device command that was never found in the
 * device's history once the batch's window had ended (docs/decisions/006-vendor-adapter-and-product-api.md);
 * `endedAt` when it was cancelled or refused, or the window ended without it.
 */
export interface CommandFact {
  deviceId: string;
  commandId?: string | undefined;
  batchCommandId?: string | undefined;
  /** The ledger entry that sent it, when it went through powerdeck. */
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

/** One batch sent through powerdeck, with what is known of its device commands. */
export interface BatchFact {
  ledgerEntryId: string;
  batchCommandId?: string | undefined;
  startTime: string;
  endTime: string;
  powerControl?: z.infer<typeof PowerControlSchema> | undefined;
  deviceIds: string[];
  /** Devices whose command was found (confirmed). */
  found: number;
  /** Devices whose command is still looked for. */
  confirming: number;
  /** Devices whose command was never found. */
  notFound: number;
  /** A batch cancel of it succeeded. */
  cancelled: boolean;
  /**
   * Devices whose part in it is over, as its batch page counts them: their command known final,
   * never found, or their site unbound (no longer followed). Absent: not counted.
   */
  over?: number | undefined;
}

/** Everything an {@link OverviewSource} answers; `buildOverview` makes the overview of it. */
export interface OverviewFacts {
  commands: CommandFact[];
  batches: BatchFact[];
  fleetJobs: FleetJob[];
  sites: Site[];
}

// ---- the rules ----

/** The section a command belongs to at `nowMs`, or none (completed, ended long ago, far off). */
export type CommandSection = 'executing' | 'upcoming' | 'attention' | 'cancelledByOperator';

/**
 * Whether a command that ended without running its window needs an operator's attention: a
 * refusal, a batch's device command never found, and a cancellation for any reason but
 * `manuallyCancel` (device command API, section 3.2: a device fault, a control not supported, a
 * start time that expired, a batch command's window that overlapped another, or a reason not
 * known). `manuallyCancel` is an operator's cancel, and so are an undo, a replace's cancel and
 * a fleet job's abort, which cancel the same way (docs/upstream.md, Lifecycle): wanted, so it is
 * no alarm. False for a command that has not ended.
 */
export function needsAttention(
  command: Pick<CommandFact, 'refusal' | 'notFound' | 'status' | 'cancelReason'>,
): boolean {
  if (command.refusal !== undefined || command.notFound === true) return true;
  return command.status === 'cancelled' && command.cancelReason !== 'manuallyCancel';
}

/**
 * Where a command goes: refused, not found or cancelled within {@link OVERVIEW_RECENT_HOURS} is
 * `attention` ({@link needsAttention}) or `cancelledByOperator`; completed goes nowhere; `executing` when the vendor said so while its window lasts, or, its
 * status not read (or still received: the vendor starts it at its start time, docs/upstream.md,
 * Lifecycle), while `nowMs` is inside its window; `upcoming` when it starts within
 * {@link OVERVIEW_UPCOMING_HOURS}. Windows are `[startTime, endTime)`.
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

/**
 * The device commands, batches and cancellations of ledger entries (`GET /api/ledger`'s shape),
 * as facts: a submission's command (or its refusal in the product's words), a batch's device
 * commands found and those never found (`notFound`, ended with the window), a cancel or batch cancel's effect on the command it cancelled (cancelled by an
 * operator, when the cancel succeeded). `knownStatus` adds what the vendor last said of a
 * command, when the BFF holds it.
 */
export function factsFromLedger(
  entries: readonly LedgerEntry[],
  knownStatus: (deviceId: string, commandId: string) => KnownStatus | undefined = () => undefined,
): Pick<OverviewFacts, 'commands' | 'batches'> {
  const commands = new Map<string, CommandFact>();
  const batches: BatchFact[] = [];
  // Each batch's followed commands and its devices no longer followed, to count those over.
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
        // A refusal with a status the vendor gave; a call that never left the BFF is no failure
        // of the command (the operator was told at once and may send it again).
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
    // A cancel of a command sent outside powerdeck (or long ago) still says what happened.
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

/** What the vendor last said of a command (a status record's fields the overview uses). */
export interface KnownStatus {
  status: CommandStatus;
  cancelReason?: CancellationReason | undefined;
  /** When it was cancelled (`cancelledAt`). */
  endedAt?: string | undefined;
}

/**
 * The overview of `facts` at `nowMs` (the vendor's clock): commands in their sections (executing
 * by end, upcoming by start, ended newest first), batches whose window has not ended, that
 * were not cancelled and that have a device not over yet (by start), fleet jobs not final (newest first), sites and devices offline
 * or faulted (by site, site first). Each line carries its device's name, site and zone from
 * `facts.sites`.
 */
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
