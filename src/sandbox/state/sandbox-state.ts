import type { Region } from '../../domain/token.ts';
import type { SandboxClock } from '../clock.ts';
import type { Catalog } from '../fixtures/catalog.ts';
import type { FixtureClient } from '../fixtures/fixture-types.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import {
  isActiveStatus,
  type BatchRequest,
  type CommandRequest,
  type Device,
  type DeviceList,
  type DeviceListQuery,
  type HistoryQuery,
  type Site,
  type SiteList,
  type SiteListQuery,
} from '../vendor/schemas.ts';
import * as admin from './admin-operations.ts';
import * as batches from './batch-commands.ts';
import { cancelCommand } from './cancellation.ts';
import type { ClientIdentity } from './client-identity.ts';
import { commandHistory, findClientCommand, type HistorySlice } from './command-queries.ts';
import { submitCommand } from './command-submission.ts';
import type { DeviceCallLimit } from './device-call-limit.ts';
import { advanceDueCommands } from './due-transitions.ts';
import {
  emptyChange,
  isEmptyChange,
  type BindingEntity,
  type FixtureSeed,
  type SandboxPersistence,
  type StateChange,
} from './persistence.ts';
import { SerialQueue } from './serial-queue.ts';
import * as sites from './site-operations.ts';
import { adoptPersistedState, emptyStateMemory, type StateMemory } from './state-memory.ts';

/** What the sandbox needs to open its state. */
export interface SandboxStateOptions {
  catalog: Catalog;
  clock: SandboxClock;
  persistence: SandboxPersistence;
  /**
   * The fixture's name with its revision (`fixtureSeedName`); state seeded from another fixture
   * or revision starts over.
   */
  fixtureName: string;
  /** The fixture's generated history for a fresh start at `nowMs` (none for `demo`). */
  history: (nowMs: number) => CommandEntity[];
  /**
   * The rate limit at start and after a reset: requests per device per rolling minute, 0 = off
   * (docs/upstream.md, Rate limit). Default 2, the vendor's.
   */
  deviceCallsPerMinute?: number | undefined;
}

/**
 * The sandbox's state and every vendor operation on it (docs/upstream.md). Active commands,
 * bindings, batches, device conditions and tokens live in memory for speed ({@link StateMemory});
 * every change is written through to {@link SandboxPersistence} before an operation answers, and
 * final commands are read back from it (status, history, batch cancel), so start-up loads only
 * what can still change. Operations run one at a time ({@link SerialQueue}). Before each operation
 * the due lifecycle transitions run ({@link advanceDueCommands}), so wall time passing moves
 * commands as well as admin clock moves. Each operation's rules live in its own module; this class
 * sequences and persists them.
 *
 * Errors are thrown as `SandboxError`: 404 `NOT_FOUND` for a site, device, command or batch that
 * is unknown in the caller's region or not the caller's (the same answer for both); 429
 * `RATE_LIMIT_EXCEEDED` (`RateLimitError`) for a call about a device with no slot of the vendor's
 * rate limit left (submit, status, cancel, history, batch, batch cancel; docs/upstream.md, Rate
 * limit); 409, 422 and 400 as each operation says.
 */
export class SandboxState {
  private readonly queue = new SerialQueue();
  private readonly memory: StateMemory;
  private readonly persistence: SandboxPersistence;
  private readonly fixtureName: string;
  private readonly fixtureHistory: (nowMs: number) => CommandEntity[];

  private constructor(options: SandboxStateOptions) {
    this.memory = emptyStateMemory(
      options.catalog,
      options.clock,
      options.persistence,
      options.deviceCallsPerMinute,
    );
    this.persistence = options.persistence;
    this.fixtureName = options.fixtureName;
    this.fixtureHistory = options.history;
  }

  /**
   * Loads the persisted state; an empty store (or one seeded from another fixture or fixture
   * revision) is seeded with the fixture's fresh start first.
   */
  static async open(options: SandboxStateOptions): Promise<SandboxState> {
    const state = new SandboxState(options);
    const loaded = await options.persistence.load();
    if (loaded.seededFixture === options.fixtureName) adoptPersistedState(state.memory, loaded);
    else {
      // Tokens survive a fresh start, as they survive a reset.
      state.memory.tokens.adopt(loaded.tokens);
      await state.startOver();
    }
    return state;
  }

  /** Current sandbox time, epoch ms. */
  nowMs(): number {
    return this.memory.clock.now();
  }

  // ---- tokens (docs/upstream.md, Tokens) ----

  /** Issues a bearer token for `client`, valid `ttlS` seconds of sandbox time. */
  issueToken(client: FixtureClient, ttlS: number): Promise<string> {
    return this.mutate((change) =>
      this.memory.tokens.issue(client, ttlS, this.memory.clock.now(), change),
    );
  }

  /** The client of a token valid now in `region`, else `undefined` (401 for the caller). */
  authenticate(token: string, region: Region): ClientIdentity | undefined {
    return this.memory.tokens.authenticate(token, region, this.memory.clock.now());
  }

  // ---- sites and devices (docs/upstream.md, Sites, Paging) ----

  /** One page of the sites bound to the client, in bind order, filtered. */
  listSites(client: ClientIdentity, query: SiteListQuery): Promise<SiteList> {
    return this.mutate(() => sites.listSites(this.memory, client, query));
  }

  /** A site bound to the client. @throws SandboxError 404 otherwise. */
  siteDetails(client: ClientIdentity, siteId: string, includeDevices: boolean): Promise<Site> {
    return this.mutate(() => sites.siteDetails(this.memory, client, siteId, includeDevices));
  }

  /** One page of the devices of the bound sites, flattened, filtered. */
  listDevices(client: ClientIdentity, query: DeviceListQuery): Promise<DeviceList> {
    return this.mutate(() => sites.listDevices(this.memory, client, query));
  }

  /** A device of a bound site. @throws SandboxError 404 otherwise. */
  deviceDetails(client: ClientIdentity, deviceId: string): Promise<Device> {
    return this.mutate(() => sites.deviceDetails(this.memory, client, deviceId));
  }

  /**
   * Binds a site to the client; binding it again succeeds.
   * @throws SandboxError 404 when the site is unknown in the client's region, 409 when another
   *   partner client holds it.
   */
  bindSite(client: ClientIdentity, siteId: string): Promise<void> {
    return this.mutate((change) => sites.bindSite(this.memory, client, siteId, change));
  }

  /**
   * Unbinds a site; its devices and their commands then answer 404.
   * @throws SandboxError 404 when the site is not bound to the client.
   */
  unbindSite(client: ClientIdentity, siteId: string): Promise<void> {
    return this.mutate((change) => sites.unbindSite(this.memory, client, siteId, change));
  }

  // ---- single commands (docs/upstream.md, Commands, Status record, History) ----

  /**
   * Accepts a command as `received`.
   * @throws SandboxError 404 (device not found or not yours), RateLimitError 429 (no slot of the
   *   device's rate limit left), 400 when the window has already ended, 422 for a
   *   `targetBatteryPowerW` outside the device's range, 409 `TIME_WINDOW_OVERLAP` when the window
   *   overlaps a received or executing command of the device.
   */
  submit(
    client: ClientIdentity,
    deviceId: string,
    command: CommandRequest,
  ): Promise<CommandEntity> {
    return this.mutate((change) => submitCommand(this.memory, client, deviceId, command, change));
  }

  /** A command of a device. @throws SandboxError 404, RateLimitError 429. */
  status(client: ClientIdentity, deviceId: string, commandId: string): Promise<CommandEntity> {
    return this.mutate(() => findClientCommand(this.memory, client, deviceId, commandId));
  }

  /**
   * Cancels a received or executing command with `manuallyCancel`.
   * @throws SandboxError 404, RateLimitError 429, 409 `COMMAND_NOT_CANCELLABLE` when completed or
   *   already cancelled.
   */
  cancel(client: ClientIdentity, deviceId: string, commandId: string): Promise<CommandEntity> {
    return this.mutate((change) => cancelCommand(this.memory, client, deviceId, commandId, change));
  }

  /**
   * One page of the commands of a device whose window intersects the query range, by start
   * time, optionally of one status. @throws SandboxError 404, RateLimitError 429.
   */
  history(client: ClientIdentity, deviceId: string, query: HistoryQuery): Promise<HistorySlice> {
    return this.mutate(() => commandHistory(this.memory, client, deviceId, query));
  }

  // ---- batches (docs/upstream.md, Batches) ----

  /**
   * Sends one command to every listed device. A device not found or not yours (404), every device
   * over the rate limit (429), an ended window (400) or an out-of-range value (422) refuses the
   * whole batch; otherwise each device succeeds or fails on its own (one over the rate limit is
   * left out, an overlapping window gets a command cancelled at once with `timeWindowOverlap`).
   * The batch and its commands are written in one transaction.
   */
  submitBatch(client: ClientIdentity, request: BatchRequest): Promise<batches.BatchSubmission> {
    return this.mutate((change) => batches.submitBatch(this.memory, client, request, change));
  }

  /**
   * Cancels every command of a batch that can be cancelled; one result per device, cancelled
   * and failed mixed (a device over the rate limit fails).
   * @throws SandboxError 404 when the batch is unknown to the client, RateLimitError 429 when
   *   every device is over the rate limit, 409 when every command of the batch is already final.
   */
  cancelBatch(client: ClientIdentity, batchCommandId: string): Promise<batches.BatchCancellation> {
    return this.mutate((change) =>
      batches.cancelBatch(this.memory, client, batchCommandId, change),
    );
  }

  // ---- admin (src/sandbox/README.md, Admin API) ----

  /** The vendor's rate limit as enforced (docs/upstream.md, Rate limit); its own state is in memory. */
  get deviceCalls(): DeviceCallLimit {
    return this.memory.deviceCalls;
  }

  /**
   * Back to the fixture: no bindings but other partners', no commands but the fixture's history,
   * clock = wall.
   */
  reset(): Promise<void> {
    return this.queue.run(() => this.startOver());
  }

  /**
   * Moves the clock to `targetMs` (forward only) and runs the due transitions at once.
   * @throws SandboxError 400 when `targetMs` is in the sandbox's past.
   */
  moveClock(targetMs: number): Promise<number> {
    return this.mutate((change) => admin.moveClock(this.memory, targetMs, change));
  }

  /**
   * Moves the clock forward by `advanceMs` from where it stands when the move runs, so two moves
   * asked for at once add up rather than the second landing in the past of the first.
   */
  advanceClock(advanceMs: number): Promise<number> {
    return this.mutate((change) =>
      admin.moveClock(this.memory, this.memory.clock.now() + advanceMs, change),
    );
  }

  /**
   * Takes a device offline or online, faults it or clears the fault (any region). Due
   * transitions run first under the old condition, then those the new one causes.
   * @throws SandboxError 404 for an unknown device.
   */
  setDeviceCondition(
    deviceId: string,
    update: { online?: boolean | undefined; fault?: boolean | undefined },
  ): Promise<admin.DeviceConditionView> {
    return this.mutate((change) => admin.setDeviceCondition(this.memory, deviceId, update, change));
  }

  // ---- persistence glue ----

  private async startOver(): Promise<void> {
    this.memory.clock.reset();
    this.memory.deviceCalls.reset();
    const bindings: BindingEntity[] = this.memory.catalog.fixture.bindings.map((binding, i) => ({
      ...binding,
      seq: i + 1,
    }));
    const seed: FixtureSeed = {
      fixture: this.fixtureName,
      commands: this.fixtureHistory(this.memory.clock.now()),
      bindings,
    };
    await this.persistence.reset(seed);
    adoptPersistedState(this.memory, {
      seededFixture: seed.fixture,
      clockOffsetMs: 0,
      bindings,
      deviceConditions: [],
      activeCommands: seed.commands.filter((command) => isActiveStatus(command.status)),
      batches: [],
      tokens: this.memory.tokens.all(),
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
      advanceDueCommands(this.memory, due);
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
      adoptPersistedState(this.memory, await this.persistence.load());
      throw error;
    }
  }
}
