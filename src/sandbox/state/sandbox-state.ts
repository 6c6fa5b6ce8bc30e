import type { BatchCancelResponse, BatchRequest } from '../../domain/batch.ts';
import { isActiveStatus, type DeviceCommand } from '../../domain/command.ts';
import type { Site } from '../../domain/device.ts';
import type { HistoryQuery } from '../../domain/history.ts';
import type { Region } from '../../domain/token.ts';
import type { SandboxClock } from '../clock.ts';
import type { Catalog } from '../fixtures/catalog.ts';
import type { FixtureClient } from '../fixtures/fixture-types.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import * as admin from './admin-operations.ts';
import * as batches from './batch-commands.ts';
import { cancelCommand } from './cancellation.ts';
import type { ClientIdentity } from './client-identity.ts';
import { commandHistory, findClientCommand } from './command-queries.ts';
import { submitCommand } from './command-submission.ts';
import { advanceDueCommands } from './due-transitions.ts';
import {
  emptyChange,
  isEmptyChange,
  type BatchEntity,
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
  /** The fixture's name; state seeded from another fixture starts over. */
  fixtureName: string;
  /** The fixture's generated history for a fresh start at `nowMs` (none for `demo`). */
  history: (nowMs: number) => CommandEntity[];
}

/**
 * The sandbox's state and every operation of the upstream on it (spec 4; docs/architecture.md,
 * Upstream contract). Active commands, bindings, batches, device conditions and tokens live in
 * memory for speed ({@link StateMemory}); every change is written through to {@link
 * SandboxPersistence} before an operation answers, and final commands are read back from it
 * (status, history, batch cancel), so start-up loads only what can still change. Operations run one
 * at a time ({@link SerialQueue}). Before each operation the due lifecycle transitions run ({@link
 * advanceDueCommands}), so wall time passing moves commands as well as admin clock moves. Each
 * operation's rules live in its own module; this class sequences and persists them.
 *
 * Errors are thrown as `SandboxError`: 404 `not_found` for a device, site, command or
 * batch unknown in the caller's region; 403 `site_not_bound` for a device of a site the caller
 * has not bound; 409, 422 and 400 as each operation says.
 */
export class SandboxState {
  private readonly queue = new SerialQueue();
  private readonly memory: StateMemory;
  private readonly persistence: SandboxPersistence;
  private readonly fixtureName: string;
  private readonly fixtureHistory: (nowMs: number) => CommandEntity[];

  private constructor(options: SandboxStateOptions) {
    this.memory = emptyStateMemory(options.catalog, options.clock, options.persistence);
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
    if (loaded.seededFixture === options.fixtureName) adoptPersistedState(state.memory, loaded);
    else await state.startOver();
    return state;
  }

  /** Current sandbox time, epoch ms. */
  nowMs(): number {
    return this.memory.clock.now();
  }

  // ---- tokens (spec 2.6, 5) ----

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

  // ---- sites (spec 2.7, 4, 5 rule 5) ----

  /** The sites bound to the client, in bind order. */
  listSites(client: ClientIdentity): Promise<Site[]> {
    return this.mutate(() => sites.listSites(this.memory, client));
  }

  /**
   * Binds a site to the client; `created` is false when it was bound already.
   * @throws SandboxError 404 when the site is unknown in the client's region.
   */
  bindSite(client: ClientIdentity, siteId: string): Promise<{ site: Site; created: boolean }> {
    return this.mutate((change) => sites.bindSite(this.memory, client, siteId, change));
  }

  /**
   * Unbinds a site; its devices and their commands then answer 403.
   * @throws SandboxError 404 when the site is not bound to the client.
   */
  unbindSite(client: ClientIdentity, siteId: string): Promise<void> {
    return this.mutate((change) => sites.unbindSite(this.memory, client, siteId, change));
  }

  // ---- single commands (spec 2.1, 2.3, 2.4, 3, 4) ----

  /**
   * Accepts a command as `received` (spec 3.1 row 1).
   * @throws SandboxError 404/403 (device), 400 when the window has already ended, 422 for a
   *   value outside the device's capability range, 409 `window_overlap` when the window overlaps
   *   a received or executing command of the device (spec 3.1 rule 2).
   */
  submit(client: ClientIdentity, deviceId: string, command: DeviceCommand): Promise<CommandEntity> {
    return this.mutate((change) => submitCommand(this.memory, client, deviceId, command, change));
  }

  /** A command of a device. @throws SandboxError 404/403. */
  status(client: ClientIdentity, deviceId: string, commandId: string): Promise<CommandEntity> {
    return this.mutate(() => findClientCommand(this.memory, client, deviceId, commandId));
  }

  /**
   * Cancels a received or executing command with `manuallyCancel`.
   * @throws SandboxError 404/403, 409 `not_cancellable` when completed or already cancelled
   *   (spec 3.1 rule 1).
   */
  cancel(client: ClientIdentity, deviceId: string, commandId: string): Promise<CommandEntity> {
    return this.mutate((change) => cancelCommand(this.memory, client, deviceId, commandId, change));
  }

  /**
   * Commands of a device whose window intersects the query range, by start time, optionally of
   * one status (docs/architecture.md, Upstream contract: History). @throws SandboxError 404/403.
   */
  history(client: ClientIdentity, deviceId: string, query: HistoryQuery): Promise<CommandEntity[]> {
    return this.mutate(() => commandHistory(this.memory, client, deviceId, query));
  }

  // ---- batches (spec 2.5, 4, 7; docs/architecture.md, Upstream contract: Batch) ----

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
    return this.mutate((change) => batches.submitBatch(this.memory, client, request, change));
  }

  /**
   * Cancels every command of a batch that can be cancelled; one result per device, successes
   * and failures mixed (spec 2.5, 7). A completed or cancelled command fails with
   * `not_cancellable`, a device of a site unbound since fails with `site_not_bound`.
   * @throws SandboxError 404 when the batch is unknown to the client.
   */
  cancelBatch(client: ClientIdentity, batchCommandId: string): Promise<BatchCancelResponse> {
    return this.mutate((change) =>
      batches.cancelBatch(this.memory, client, batchCommandId, change),
    );
  }

  // ---- admin (docs/architecture.md, Upstream contract: Sandbox admin API) ----

  /** Back to the fixture: no bindings, no commands (but the fixture's history), clock = wall. */
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
    const seed: FixtureSeed = {
      fixture: this.fixtureName,
      commands: this.fixtureHistory(this.memory.clock.now()),
    };
    await this.persistence.reset(seed);
    adoptPersistedState(this.memory, {
      seededFixture: seed.fixture,
      clockOffsetMs: 0,
      bindings: [],
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
