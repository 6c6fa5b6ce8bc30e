import { createHash, randomBytes } from 'node:crypto';
import type { BatchCancelResponse, BatchCancelResult, BatchRequest } from '../../domain/batch.ts';
import { isActiveStatus, isFinalStatus, type DeviceCommand } from '../../domain/command.ts';
import {
  checkCapabilities,
  describeViolation,
  type Device,
  type Site,
} from '../../domain/device.ts';
import type { HistoryQuery } from '../../domain/history.ts';
import { findActiveOverlap } from '../../domain/overlap.ts';
import { toWindowMs } from '../../domain/time-window.ts';
import type { Region } from '../../domain/token.ts';
import type { SandboxClock } from '../clock.ts';
import type { Catalog } from '../fixtures/catalog.ts';
import type { FixtureClient, FixtureDevice, FixtureSite } from '../fixtures/fixture-types.ts';
import { toStatusRecord, type CommandEntity } from '../model/command-entity.ts';
import { advanceCommand, START_GRACE_MS, type DeviceCondition } from '../model/lifecycle.ts';
import { SandboxError } from '../sandbox-error.ts';
import {
  emptyChange,
  isEmptyChange,
  type BatchEntity,
  type FixtureSeed,
  type PersistedState,
  type SandboxPersistence,
  type StateChange,
  type TokenEntity,
} from './persistence.ts';
import { SerialQueue } from './serial-queue.ts';

/** Who is calling: a client of one region, from its bearer token. */
export interface ClientIdentity {
  clientId: string;
  region: Region;
}

/** A device's condition as the admin API reports it. */
export interface DeviceConditionView {
  deviceId: string;
  online: boolean;
  fault: boolean;
}

/** What the sandbox needs to open its state. */
export interface SandboxStateOptions {
  catalog: Catalog;
  clock: SandboxClock;
  persistence: SandboxPersistence;
  /** The fixture's name; state seeded from another fixture starts over. */
  fixtureName: string;
  /** The fixture's generated history for a fresh start at `nowMs` (none for `demo`). */
  history: (nowMs: number) => CommandEntity[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('base64url')}`;

/**
 * The sandbox's state and every operation of the upstream on it (spec 4; DESIGN.md 3). Active
 * commands, bindings, batches, device conditions and tokens live in memory for speed; every
 * change is written through to {@link SandboxPersistence} before an operation answers, and final
 * commands are read back from it (status, history, batch cancel), so start-up loads only what
 * can still change. Operations run one at a time ({@link SerialQueue}). Before each operation
 * the due lifecycle transitions run ({@link advanceCommand}), so wall time passing moves
 * commands as well as admin clock moves.
 *
 * Errors are thrown as {@link SandboxError}: 404 `not_found` for a device, site, command or
 * batch unknown in the caller's region; 403 `site_not_bound` for a device of a site the caller
 * has not bound; 409, 422 and 400 as each operation says.
 */
export class SandboxState {
  private readonly queue = new SerialQueue();
  private readonly catalog: Catalog;
  private readonly clock: SandboxClock;
  private readonly persistence: SandboxPersistence;
  private readonly fixtureName: string;
  private readonly fixtureHistory: (nowMs: number) => CommandEntity[];

  /** Received and executing commands only; final ones are in the store. */
  private active = new Map<string, CommandEntity>();
  private activeIdsByDevice = new Map<string, Set<string>>();
  private batches = new Map<string, BatchEntity>();
  private bindings = new Map<string, Map<string, number>>();
  private bindingSeq = 0;
  private conditions = new Map<string, DeviceCondition>();
  private tokens = new Map<string, TokenEntity>();
  /** Earliest instant an active command may change; no scan before it (large fixture). */
  private nextDueMs = -Infinity;

  private constructor(options: SandboxStateOptions) {
    this.catalog = options.catalog;
    this.clock = options.clock;
    this.persistence = options.persistence;
    this.fixtureName = options.fixtureName;
    this.fixtureHistory = options.history;
  }

  /**
   * Loads the persisted state; an empty store (or one seeded from another fixture) is seeded
   * with the fixture's fresh start first.
   */
  static async open(options: SandboxStateOptions): Promise<SandboxState> {
    const state = new SandboxState(options);
    const loaded = await options.persistence.load();
    if (loaded.seededFixture === options.fixtureName) state.adopt(loaded);
    else await state.startOver();
    return state;
  }

  /** Current sandbox time, epoch ms. */
  nowMs(): number {
    return this.clock.now();
  }

  // ---- tokens (spec 2.6, 5) ----

  /** Issues a bearer token for `client`, valid `ttlS` seconds of sandbox time. */
  issueToken(client: FixtureClient, ttlS: number): Promise<string> {
    return this.mutate((change) => {
      const token = randomBytes(32).toString('base64url');
      const nowMs = this.clock.now();
      const entity: TokenEntity = {
        tokenHash: hashToken(token),
        clientId: client.clientId,
        region: client.region,
        expiresAtMs: nowMs + ttlS * 1000,
      };
      for (const [hash, existing] of this.tokens)
        if (existing.expiresAtMs <= nowMs) this.tokens.delete(hash);
      change.tokensExpiredBeforeMs = nowMs;
      this.tokens.set(entity.tokenHash, entity);
      change.tokens.push(entity);
      return token;
    });
  }

  /** The client of a token valid now in `region`, else `undefined` (401 for the caller). */
  authenticate(token: string, region: Region): ClientIdentity | undefined {
    const entity = this.tokens.get(hashToken(token));
    if (!entity || entity.region !== region || entity.expiresAtMs <= this.clock.now())
      return undefined;
    return { clientId: entity.clientId, region: entity.region };
  }

  // ---- sites (spec 2.7, 4, 5 rule 5) ----

  /** The sites bound to the client, in bind order. */
  listSites(client: ClientIdentity): Promise<Site[]> {
    return this.mutate(() =>
      [...(this.bindings.get(client.clientId) ?? new Map<string, number>()).entries()]
        .sort((a, b) => a[1] - b[1])
        .map(([siteId]) => this.catalog.site(siteId, client.region))
        .filter((site): site is FixtureSite => site !== undefined)
        .map((site) => this.toSite(site)),
    );
  }

  /**
   * Binds a site to the client; `created` is false when it was bound already.
   * @throws SandboxError 404 when the site is unknown in the client's region.
   */
  bindSite(client: ClientIdentity, siteId: string): Promise<{ site: Site; created: boolean }> {
    return this.mutate((change) => {
      const site = this.catalog.site(siteId, client.region);
      if (!site)
        throw new SandboxError(
          'not_found',
          `Site ${siteId} is not known in this region; check the Plant ID in the vendor's app`,
          { siteId },
        );
      const bound = this.bindingsOf(client.clientId);
      const created = !bound.has(siteId);
      if (created) {
        this.bindingSeq += 1;
        bound.set(siteId, this.bindingSeq);
        change.bindings.push({ clientId: client.clientId, siteId, seq: this.bindingSeq });
      }
      return { site: this.toSite(site), created };
    });
  }

  /**
   * Unbinds a site; its devices and their commands then answer 403.
   * @throws SandboxError 404 when the site is not bound to the client.
   */
  unbindSite(client: ClientIdentity, siteId: string): Promise<void> {
    return this.mutate((change) => {
      const bound = this.bindingsOf(client.clientId);
      if (!bound.delete(siteId))
        throw new SandboxError(
          'not_found',
          `Site ${siteId} is not bound to this client; GET /sites lists the bound sites`,
          { siteId },
        );
      change.unbindings.push({ clientId: client.clientId, siteId });
    });
  }

  // ---- single commands (spec 2.1, 2.3, 2.4, 3, 4) ----

  /**
   * Accepts a command as `received` (spec 3.1 row 1).
   * @throws SandboxError 404/403 (device), 400 when the window has already ended, 422 for a
   *   value outside the device's capability range, 409 `window_overlap` when the window overlaps
   *   a received or executing command of the device (spec 3.1 rule 2).
   */
  submit(client: ClientIdentity, deviceId: string, command: DeviceCommand): Promise<CommandEntity> {
    return this.mutate((change) => {
      const device = this.accessibleDevice(client, deviceId);
      const nowMs = this.clock.now();
      this.refuseEndedWindow(command, nowMs);
      this.refuseOutOfRange(device, command);
      const overlap = this.activeOverlap(deviceId, command);
      if (overlap)
        throw new SandboxError(
          'window_overlap',
          `The window overlaps command ${overlap.id} of device ${deviceId} (${overlap.startTime} to ${overlap.endTime}); cancel it first or choose a window that does not overlap (spec 3.1 rule 2)`,
          {
            conflictingCommandId: overlap.id,
            startTime: overlap.startTime,
            endTime: overlap.endTime,
          },
        );
      const entity = this.newCommand(deviceId, command, nowMs);
      this.put(entity, change);
      return entity;
    });
  }

  /** A command of a device. @throws SandboxError 404/403. */
  status(client: ClientIdentity, deviceId: string, commandId: string): Promise<CommandEntity> {
    return this.mutate(async () => this.commandOf(client, deviceId, commandId));
  }

  /**
   * Cancels a received or executing command with `manuallyCancel`.
   * @throws SandboxError 404/403, 409 `not_cancellable` when completed or already cancelled
   *   (spec 3.1 rule 1).
   */
  cancel(client: ClientIdentity, deviceId: string, commandId: string): Promise<CommandEntity> {
    return this.mutate(async (change) => {
      const command = await this.commandOf(client, deviceId, commandId);
      if (!isActiveStatus(command.status)) throw notCancellable(command);
      const cancelled = this.cancelled(command);
      this.put(cancelled, change);
      return cancelled;
    });
  }

  /**
   * Commands of a device whose window intersects the query range, by start time, optionally of
   * one status (DESIGN.md 3, "History"). @throws SandboxError 404/403.
   */
  history(client: ClientIdentity, deviceId: string, query: HistoryQuery): Promise<CommandEntity[]> {
    return this.mutate(async () => {
      this.accessibleDevice(client, deviceId);
      return this.persistence.history({ deviceId, ...toWindowMs(query), status: query.status });
    });
  }

  // ---- batches (spec 2.5, 4, 7; DESIGN.md 3 "Batch") ----

  /**
   * Sends one command to every listed device, all or nothing: an unknown device (404), a device
   * of an unbound site (403), an ended window (400) or an out-of-range value (422) refuses the
   * whole batch. A device whose window overlaps an active command gets a command cancelled at
   * once with `timeWindowOverlap`. The batch and its commands are written in one transaction.
   */
  submitBatch(
    client: ClientIdentity,
    request: BatchRequest,
  ): Promise<{ batch: BatchEntity; commands: CommandEntity[] }> {
    return this.mutate((change) => {
      const unknown = request.devices.filter((id) => !this.catalog.device(id, client.region));
      if (unknown.length > 0)
        throw new SandboxError(
          'not_found',
          `devices: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not known in this region; remove them from the batch`,
          { deviceIds: unknown },
        );
      const unbound = request.devices.filter((id) => {
        const device = this.catalog.device(id, client.region);
        return device !== undefined && !this.isBound(client, device.siteId);
      });
      if (unbound.length > 0)
        throw new SandboxError(
          'site_not_bound',
          `devices: ${unbound.join(', ')} belong to sites not bound to this client; bind their sites with POST /sites first`,
          { deviceIds: unbound },
        );
      const nowMs = this.clock.now();
      this.refuseEndedWindow(request.command, nowMs);
      for (const deviceId of request.devices)
        this.refuseOutOfRange(this.accessibleDevice(client, deviceId), request.command);

      const batch: BatchEntity = {
        id: newId('batch_'),
        clientId: client.clientId,
        region: client.region,
        createdAtMs: nowMs,
        deviceIds: request.devices,
      };
      const commands = request.devices.map((deviceId) => {
        const fresh = this.newCommand(deviceId, request.command, nowMs, batch.id);
        return this.activeOverlap(deviceId, request.command)
          ? {
              ...fresh,
              status: 'cancelled' as const,
              cancelledAtMs: nowMs,
              cancelReason: 'timeWindowOverlap' as const,
            }
          : fresh;
      });
      this.batches.set(batch.id, batch);
      change.batch = batch;
      for (const command of commands) this.put(command, change);
      return { batch, commands };
    });
  }

  /**
   * Cancels every command of a batch that can be cancelled; one result per device, successes
   * and failures mixed (spec 2.5, 7). A completed or cancelled command fails with
   * `not_cancellable`, a device of a site unbound since fails with `site_not_bound`.
   * @throws SandboxError 404 when the batch is unknown to the client.
   */
  cancelBatch(client: ClientIdentity, batchCommandId: string): Promise<BatchCancelResponse> {
    return this.mutate(async (change) => {
      const batch = this.batches.get(batchCommandId);
      if (!batch || batch.clientId !== client.clientId)
        throw new SandboxError(
          'not_found',
          `Batch ${batchCommandId} is not known to this client; use the batchCommandId the batch submission answered`,
          { batchCommandId },
        );
      const stored = new Map(
        (await this.persistence.batchCommands(batch.id)).map((c) => [c.deviceId, c]),
      );
      // Batches stored before device order was kept have no deviceIds: use the stored commands.
      const deviceIds = batch.deviceIds.length > 0 ? batch.deviceIds : [...stored.keys()];
      const results = deviceIds.map((deviceId): BatchCancelResult => {
        const found = stored.get(deviceId);
        if (!found) throw new Error(`batch ${batch.id} lost the command of ${deviceId}`);
        const command = this.active.get(found.id) ?? found;
        const base = { deviceId, commandId: command.id };
        const device = this.catalog.device(command.deviceId, client.region);
        if (!device || !this.isBound(client, device.siteId))
          return {
            ...base,
            success: false,
            status: command.status,
            error: unboundError(command.deviceId, device?.siteId).body(),
          };
        if (!isActiveStatus(command.status))
          return {
            ...base,
            success: false,
            status: command.status,
            error: notCancellable(command).body(),
          };
        const cancelled = this.cancelled(command);
        this.put(cancelled, change);
        return { ...base, success: true, status: cancelled.status };
      });
      return { batchCommandId: batch.id, results };
    });
  }

  // ---- admin (DESIGN.md 3, admin table) ----

  /** Back to the fixture: no bindings, no commands (but the fixture's history), clock = wall. */
  reset(): Promise<void> {
    return this.queue.run(() => this.startOver());
  }

  /**
   * Moves the clock to `targetMs` (forward only) and runs the due transitions at once.
   * @throws SandboxError 400 when `targetMs` is in the sandbox's past.
   */
  moveClock(targetMs: number): Promise<number> {
    return this.mutate((change) => {
      this.clock.moveTo(targetMs);
      change.clockOffsetMs = this.clock.offsetMs;
      this.advanceAll(change);
      return this.clock.now();
    });
  }

  /**
   * Takes a device offline or online, faults it or clears the fault (any region). Due
   * transitions run first under the old condition, then those the new one causes.
   * @throws SandboxError 404 for an unknown device.
   */
  setDeviceCondition(
    deviceId: string,
    update: { online?: boolean | undefined; fault?: boolean | undefined },
  ): Promise<DeviceConditionView> {
    return this.mutate((change) => {
      const device = this.catalog.device(deviceId);
      if (!device)
        throw new SandboxError('not_found', `Device ${deviceId} is not in the fixture`, {
          deviceId,
        });
      const current = this.conditionOf(device);
      const next: DeviceCondition = {
        online: update.online ?? current.online,
        fault: update.fault ?? current.fault,
        sinceMs: this.clock.now(),
      };
      if (next.online !== current.online || next.fault !== current.fault) {
        this.conditions.set(deviceId, next);
        this.nextDueMs = -Infinity;
        change.deviceConditions.push({ deviceId, ...next });
        this.advanceAll(change);
      }
      return { deviceId, online: next.online, fault: next.fault };
    });
  }

  // ---- internals ----

  private async startOver(): Promise<void> {
    this.clock.reset();
    const seed: FixtureSeed = {
      fixture: this.fixtureName,
      commands: this.fixtureHistory(this.clock.now()),
    };
    await this.persistence.reset(seed);
    this.adopt({
      seededFixture: seed.fixture,
      clockOffsetMs: 0,
      bindings: [],
      deviceConditions: [],
      activeCommands: seed.commands.filter((command) => isActiveStatus(command.status)),
      batches: [],
      tokens: [...this.tokens.values()],
    });
  }

  /**
   * Runs `operation` alone, after the due transitions, then persists what changed before
   * answering. When persisting fails, memory is reloaded from the store so both agree.
   */
  private mutate<T>(operation: (change: StateChange) => T | Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      // Due transitions are written first, so the store is current for the operation's reads
      // and they are kept even when the operation is refused.
      const due = emptyChange();
      this.advanceAll(due);
      await this.persist(due);
      const change = emptyChange();
      let outcome: { result: T } | { error: unknown };
      try {
        outcome = { result: await operation(change) };
      } catch (error) {
        outcome = { error };
      }
      await this.persist(change);
      if ('error' in outcome) throw outcome.error;
      return outcome.result;
    });
  }

  /** Writes a change; when that fails, memory is reloaded from the store so both agree. */
  private async persist(change: StateChange): Promise<void> {
    if (isEmptyChange(change)) return;
    try {
      await this.persistence.write(change);
    } catch (error) {
      this.adopt(await this.persistence.load());
      throw error;
    }
  }

  private advanceAll(change: StateChange): void {
    const nowMs = this.clock.now();
    if (nowMs < this.nextDueMs) return;
    let nextDueMs = Infinity;
    for (const command of [...this.active.values()]) {
      const device = this.catalog.device(command.deviceId);
      if (!device) continue;
      const next = advanceCommand(command, device.capabilities, this.conditionOf(device), nowMs);
      if (next) this.put(next, change);
      const current = next ?? command;
      if (current.status === 'executing') nextDueMs = Math.min(nextDueMs, current.endMs);
      else if (current.status === 'received')
        nextDueMs = Math.min(
          nextDueMs,
          current.startMs > nowMs
            ? current.startMs
            : Math.min(
                Math.max(current.startMs, current.receivedAtMs) + START_GRACE_MS,
                current.endMs,
              ),
        );
    }
    this.nextDueMs = nextDueMs;
  }

  private put(command: CommandEntity, change: StateChange): void {
    this.remember(command);
    change.commands.set(command.id, command);
  }

  /** Keeps an active command in memory, forgets a final one (the store has it). */
  private remember(command: CommandEntity): void {
    let ids = this.activeIdsByDevice.get(command.deviceId);
    if (isFinalStatus(command.status)) {
      this.active.delete(command.id);
      ids?.delete(command.id);
      return;
    }
    this.active.set(command.id, command);
    if (!ids) {
      ids = new Set();
      this.activeIdsByDevice.set(command.deviceId, ids);
    }
    ids.add(command.id);
    this.nextDueMs = Math.min(this.nextDueMs, command.startMs);
  }

  private adopt(state: PersistedState): void {
    this.clock.restore(state.clockOffsetMs);
    this.nextDueMs = -Infinity;
    this.active = new Map();
    this.activeIdsByDevice = new Map();
    for (const command of state.activeCommands) this.remember(command);
    this.batches = new Map(state.batches.map((batch) => [batch.id, batch]));
    this.bindings = new Map();
    this.bindingSeq = 0;
    for (const binding of state.bindings) {
      this.bindingsOf(binding.clientId).set(binding.siteId, binding.seq);
      this.bindingSeq = Math.max(this.bindingSeq, binding.seq);
    }
    this.conditions = new Map(
      state.deviceConditions.map(({ deviceId, ...condition }) => [deviceId, condition]),
    );
    this.tokens = new Map(state.tokens.map((token) => [token.tokenHash, token]));
  }

  private bindingsOf(clientId: string): Map<string, number> {
    let bound = this.bindings.get(clientId);
    if (!bound) {
      bound = new Map();
      this.bindings.set(clientId, bound);
    }
    return bound;
  }

  private isBound(client: ClientIdentity, siteId: string): boolean {
    return this.bindings.get(client.clientId)?.has(siteId) ?? false;
  }

  private conditionOf(device: FixtureDevice): DeviceCondition {
    return (
      this.conditions.get(device.deviceId) ?? { online: device.online, fault: false, sinceMs: 0 }
    );
  }

  /** The device, when known in the client's region and its site is bound. */
  private accessibleDevice(client: ClientIdentity, deviceId: string): FixtureDevice {
    const device = this.catalog.device(deviceId, client.region);
    if (!device)
      throw new SandboxError(
        'not_found',
        `Device ${deviceId} is not known in this region; GET /sites lists the devices of the bound sites`,
        { deviceId },
      );
    if (!this.isBound(client, device.siteId)) throw unboundError(deviceId, device.siteId);
    return device;
  }

  private async commandOf(
    client: ClientIdentity,
    deviceId: string,
    commandId: string,
  ): Promise<CommandEntity> {
    this.accessibleDevice(client, deviceId);
    const command = this.active.get(commandId) ?? (await this.persistence.findCommand(commandId));
    if (!command || command.deviceId !== deviceId)
      throw new SandboxError(
        'not_found',
        `Command ${commandId} is not known for device ${deviceId}; use the id the submission answered`,
        { deviceId, commandId },
      );
    return command;
  }

  private refuseEndedWindow(command: DeviceCommand, nowMs: number): void {
    if (Date.parse(command.endTime) <= nowMs)
      throw new SandboxError(
        'invalid_request',
        `endTime: the window ends at ${command.endTime}, which has already passed (sandbox time ${iso(nowMs)}); choose an endTime in the future`,
        { where: 'body', issues: [{ field: 'endTime', message: 'endTime has already passed' }] },
      );
  }

  private refuseOutOfRange(device: FixtureDevice, command: DeviceCommand): void {
    const outOfRange = checkCapabilities(command.powerControl, device.capabilities).filter(
      (violation) => violation.kind === 'outOfRange',
    );
    const [first] = outOfRange;
    if (first?.kind !== 'outOfRange') return;
    throw new SandboxError(
      'capability_out_of_range',
      `Device ${device.deviceId}: ${outOfRange.map(describeViolation).join('; ')}; choose a value inside the range (spec 2.2)`,
      {
        deviceId: device.deviceId,
        property: first.property,
        value: first.value,
        min: first.range.min,
        max: first.range.max,
      },
    );
  }

  private activeOverlap(deviceId: string, window: DeviceCommand) {
    const active = [...(this.activeIdsByDevice.get(deviceId) ?? [])]
      .map((id) => this.active.get(id))
      .filter((command): command is CommandEntity => command !== undefined)
      .map(toStatusRecord);
    return findActiveOverlap(toWindowMs(window), active);
  }

  private newCommand(
    deviceId: string,
    command: DeviceCommand,
    nowMs: number,
    batchCommandId?: string,
  ): CommandEntity {
    return {
      id: newId('cmd_'),
      deviceId,
      batchCommandId,
      powerControl: command.powerControl,
      startMs: Date.parse(command.startTime),
      endMs: Date.parse(command.endTime),
      status: 'received',
      receivedAtMs: nowMs,
    };
  }

  private cancelled(command: CommandEntity): CommandEntity {
    return {
      ...command,
      status: 'cancelled',
      cancelledAtMs: this.clock.now(),
      cancelReason: 'manuallyCancel',
    };
  }

  private toSite(site: FixtureSite): Site {
    return {
      siteId: site.siteId,
      name: site.name,
      timeZone: site.timeZone,
      devices: site.devices.map((device): Device => ({
        deviceId: device.deviceId,
        name: device.name,
        model: device.model,
        capabilities: device.capabilities,
        online: this.conditionOf(device).online,
      })),
    };
  }
}

function unboundError(deviceId: string, siteId: string | undefined): SandboxError {
  return new SandboxError(
    'site_not_bound',
    `Device ${deviceId} belongs to site ${siteId ?? 'unknown'}, which is not bound to this client; bind it with POST /sites first (spec 5 rule 5)`,
    { deviceId, siteId },
  );
}

function notCancellable(command: CommandEntity): SandboxError {
  const why =
    command.status === 'completed'
      ? 'a completed command cannot be cancelled (spec 3.1 rule 1)'
      : `it was already cancelled (${command.cancelReason ?? 'no reason'}) and cannot be cancelled again`;
  return new SandboxError('not_cancellable', `Command ${command.id} is ${command.status}; ${why}`, {
    commandId: command.id,
    status: command.status,
  });
}
