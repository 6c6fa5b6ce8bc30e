import type { Region } from '#domain/token.ts';
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
  type PersistedState,
  type SandboxPersistence,
  type StateChange,
} from './persistence.ts';
import { SerialQueue } from './serial-queue.ts';
import * as telemetry from './telemetry-operations.ts';
import { modelOriginFor } from './telemetry-store.ts';
import type { Behaviour } from '../model/behaviours.ts';
import type {
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
import * as sites from './site-operations.ts';
import { adoptPersistedState, emptyStateMemory, type StateMemory } from './state-memory.ts';

export interface SandboxStateOptions {
  catalog: Catalog;
  clock: SandboxClock;
  persistence: SandboxPersistence;
  /** With its revision (`fixtureSeedName`): state seeded from another starts over. */
  fixtureName: string;
  history: (nowMs: number) => CommandEntity[];
  /** Requests per device per rolling minute, 0 = off; default 2 (docs/upstream.md, Rate limit). */
  deviceCallsPerMinute?: number | undefined;
}

/**
 * The sandbox's state and every vendor operation on it (docs/upstream.md). Memory serves reads;
 * every change is persisted before an operation answers. Operations run one at a time, each after
 * the due lifecycle transitions. Throws `SandboxError` (404 alike for unknown and not yours; 429
 * `RateLimitError` for a device with no slot left).
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

  static async open(options: SandboxStateOptions): Promise<SandboxState> {
    const state = new SandboxState(options);
    const loaded = await options.persistence.load();
    if (loaded.seededFixture === options.fixtureName) {
      await state.adopt(loaded);
      // A store seeded before the telemetry model had none: it starts now, once.
      if (loaded.modelOriginMs === undefined)
        await state.persist({
          ...emptyChange(),
          modelOriginMs: state.memory.telemetry.modelOriginMs,
        });
    } else {
      // Tokens survive a fresh start, as they survive a reset.
      state.memory.tokens.adopt(loaded.tokens);
      await state.startOver();
    }
    return state;
  }

  nowMs(): number {
    return this.memory.clock.now();
  }

  issueToken(client: FixtureClient, ttlS: number): Promise<string> {
    return this.mutate((change) =>
      this.memory.tokens.issue(client, ttlS, this.memory.clock.now(), change),
    );
  }

  /** `undefined` when the token is not valid now in `region` (401 for the caller). */
  authenticate(token: string, region: Region): ClientIdentity | undefined {
    return this.memory.tokens.authenticate(token, region, this.memory.clock.now());
  }

  listSites(client: ClientIdentity, query: SiteListQuery): Promise<SiteList> {
    return this.mutate(() => sites.listSites(this.memory, client, query));
  }

  siteDetails(client: ClientIdentity, siteId: string, includeDevices: boolean): Promise<Site> {
    return this.mutate(() => sites.siteDetails(this.memory, client, siteId, includeDevices));
  }

  listDevices(client: ClientIdentity, query: DeviceListQuery): Promise<DeviceList> {
    return this.mutate(() => sites.listDevices(this.memory, client, query));
  }

  deviceDetails(client: ClientIdentity, deviceId: string): Promise<Device> {
    return this.mutate(() => sites.deviceDetails(this.memory, client, deviceId));
  }

  /** Binding again succeeds. @throws SandboxError 404 unknown, 409 held by another partner. */
  bindSite(client: ClientIdentity, siteId: string): Promise<void> {
    return this.mutate((change) => sites.bindSite(this.memory, client, siteId, change));
  }

  unbindSite(client: ClientIdentity, siteId: string): Promise<void> {
    return this.mutate((change) => sites.unbindSite(this.memory, client, siteId, change));
  }

  /** @throws SandboxError 404, 429, 400 window ended, 422 power out of range, 409 overlap. */
  submit(
    client: ClientIdentity,
    deviceId: string,
    command: CommandRequest,
  ): Promise<CommandEntity> {
    return this.mutate((change) => submitCommand(this.memory, client, deviceId, command, change));
  }

  status(client: ClientIdentity, deviceId: string, commandId: string): Promise<CommandEntity> {
    return this.mutate(() => findClientCommand(this.memory, client, deviceId, commandId));
  }

  /** @throws SandboxError 404, 429, 409 `COMMAND_NOT_CANCELLABLE` when already final. */
  cancel(client: ClientIdentity, deviceId: string, commandId: string): Promise<CommandEntity> {
    return this.mutate((change) => cancelCommand(this.memory, client, deviceId, commandId, change));
  }

  history(client: ClientIdentity, deviceId: string, query: HistoryQuery): Promise<HistorySlice> {
    return this.mutate(() => commandHistory(this.memory, client, deviceId, query));
  }

  /**
   * 404, all devices over the limit (429), an ended window (400) or 422 refuses the whole batch;
   * otherwise each device succeeds or fails on its own. Written in one transaction.
   */
  submitBatch(client: ClientIdentity, request: BatchRequest): Promise<batches.BatchSubmission> {
    return this.mutate((change) => batches.submitBatch(this.memory, client, request, change));
  }

  /** @throws SandboxError 404, 429 when every device is over the limit, 409 when all final. */
  cancelBatch(client: ClientIdentity, batchCommandId: string): Promise<batches.BatchCancellation> {
    return this.mutate((change) =>
      batches.cancelBatch(this.memory, client, batchCommandId, change),
    );
  }

  /** @throws SandboxError 404 (also for a device that never sent a sample); 429. */
  latestData(client: ClientIdentity, deviceId: string): Promise<DeviceTelemetry> {
    return this.mutate(() => telemetry.latestData(this.memory, client, deviceId));
  }

  /** Counted as a batch: 404 for any device not yours, 429 when all are over the limit. */
  latestDataOf(client: ClientIdentity, request: LatestDataRequest): Promise<DeviceTelemetry[]> {
    return this.mutate(() => telemetry.latestDataOf(this.memory, client, request));
  }

  telemetryHistory(
    client: ClientIdentity,
    deviceId: string,
    query: TelemetryHistoryQuery,
  ): Promise<DeviceTelemetryHistory> {
    return this.mutate(() => telemetry.telemetryHistory(this.memory, client, deviceId, query));
  }

  energy(
    client: ClientIdentity,
    deviceId: string,
    query: EnergyQuery,
  ): Promise<DeviceEnergyStatistics> {
    return this.mutate(() => telemetry.energy(this.memory, client, deviceId, query));
  }

  alarms(client: ClientIdentity, deviceId: string, query: AlarmQuery): Promise<AlarmList> {
    return this.mutate(() => telemetry.alarms(this.memory, client, deviceId, query));
  }

  configuration(client: ClientIdentity, deviceId: string): Promise<DeviceConfiguration> {
    return this.mutate(() => telemetry.configuration(this.memory, client, deviceId));
  }

  /** Written through before it answers. @throws SandboxError 404, 400 conflict; 429. */
  setConfiguration(
    client: ClientIdentity,
    deviceId: string,
    update: ConfigurationUpdate,
  ): Promise<{ set: Record<string, unknown>[]; nowMs: number }> {
    return this.mutate((change) =>
      telemetry.setConfiguration(this.memory, client, deviceId, update, change),
    );
  }

  /**
   * The telemetry store, for in-process readers (bench, tests): read it only between operations,
   * as the routes do inside them.
   */
  get telemetry(): StateMemory['telemetry'] {
    return this.memory.telemetry;
  }

  get deviceCalls(): DeviceCallLimit {
    return this.memory.deviceCalls;
  }

  reset(): Promise<void> {
    return this.queue.run(() => this.startOver());
  }

  /** Forward only. @throws SandboxError 400 when `targetMs` is in the sandbox's past. */
  moveClock(targetMs: number): Promise<number> {
    return this.mutate((change) => admin.moveClock(this.memory, targetMs, change));
  }

  /** From where the clock stands when the move runs, so two moves at once add up. */
  advanceClock(advanceMs: number): Promise<number> {
    return this.mutate((change) =>
      admin.moveClock(this.memory, this.memory.clock.now() + advanceMs, change),
    );
  }

  /** Due transitions run first under the old condition. @throws SandboxError 404. */
  setDeviceCondition(
    deviceId: string,
    update: {
      online?: boolean | undefined;
      fault?: boolean | undefined;
      behaviour?: Behaviour | undefined;
    },
  ): Promise<admin.DeviceConditionView> {
    return this.mutate((change) => admin.setDeviceCondition(this.memory, deviceId, update, change));
  }

  private async startOver(): Promise<void> {
    this.memory.clock.reset();
    this.memory.deviceCalls.reset();
    const bindings: BindingEntity[] = this.memory.catalog.fixture.bindings.map((binding, i) => ({
      ...binding,
      seq: i + 1,
    }));
    const modelOriginMs = modelOriginFor(this.memory.clock.now());
    const seed: FixtureSeed = {
      fixture: this.fixtureName,
      modelOriginMs,
      commands: this.fixtureHistory(this.memory.clock.now()),
      bindings,
    };
    await this.persistence.reset(seed);
    await this.adopt({
      seededFixture: seed.fixture,
      clockOffsetMs: 0,
      modelOriginMs,
      bindings,
      deviceConditions: [],
      deviceConfigurations: [],
      activeCommands: seed.commands.filter((command) => isActiveStatus(command.status)),
      batches: [],
      tokens: this.memory.tokens.all(),
    });
  }

  /** Memory and the telemetry store from a persisted state. */
  private async adopt(state: PersistedState): Promise<void> {
    adoptPersistedState(this.memory, state);
    const originMs = state.modelOriginMs ?? modelOriginFor(this.memory.clock.now());
    this.memory.telemetry.adopt({
      originMs,
      executedCommands: await this.persistence.executedSince(originMs),
      conditions: state.deviceConditions,
      configurations: state.deviceConfigurations,
    });
  }

  /** When persisting fails, memory is reloaded from the store so both agree. */
  private mutate<T>(operation: (change: StateChange) => T | Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      // Written first so the operation reads a current store; kept even if it is refused.
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

  private async persist(change: StateChange): Promise<void> {
    if (isEmptyChange(change)) return;
    try {
      await this.persistence.write(change);
    } catch (error) {
      await this.adopt(await this.persistence.load());
      throw error;
    }
    const { telemetry: store } = this.memory;
    for (const command of change.commands.values()) store.observeCommand(command);
    for (const { deviceId, ...condition } of change.deviceConditions)
      store.observeCondition(deviceId, condition);
    for (const configuration of change.deviceConfigurations)
      store.observeConfiguration(configuration);
  }
}
