import type { CommandStatus } from '../vendor/schemas.ts';
import type { Region } from '#domain/token.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import type { DeviceCondition } from '../model/lifecycle.ts';
import type { FullConfiguration } from '../model/physics.ts';

export interface BatchEntity {
  id: string;
  clientId: string;
  region: Region;
  createdAtMs: number;
  deviceIds: string[];
}

/** Kept only as its SHA-256 hash. */
export interface TokenEntity {
  tokenHash: string;
  clientId: string;
  region: Region;
  expiresAtMs: number;
}

export interface BindingEntity {
  clientId: string;
  siteId: string;
  seq: number;
}

export interface DeviceConditionEntity extends DeviceCondition {
  deviceId: string;
}

/** A device's whole configuration from `fromMs` on, as `PUT .../configuration` left it. */
export interface DeviceConfigurationEntity {
  deviceId: string;
  fromMs: number;
  configuration: FullConfiguration;
}

/** Final commands stay in the store until asked for. */
export interface PersistedState {
  seededFixture: string | undefined;
  clockOffsetMs: number;
  /** Where the telemetry model starts (src/sandbox/README.md, Telemetry model); unset before. */
  modelOriginMs: number | undefined;
  bindings: BindingEntity[];
  deviceConditions: DeviceConditionEntity[];
  deviceConfigurations: DeviceConfigurationEntity[];
  activeCommands: CommandEntity[];
  batches: BatchEntity[];
  tokens: TokenEntity[];
}

export interface HistoryRange {
  deviceId: string;
  startMs: number;
  endMs: number;
  status?: CommandStatus | undefined;
}

const byStart = (a: CommandEntity, b: CommandEntity) =>
  a.startMs - b.startMs || a.receivedAtMs - b.receivedAtMs || (a.id < b.id ? -1 : 1);

/** Written atomically: a batch and its commands are never half-written. */
export interface StateChange {
  clockOffsetMs?: number;
  commands: Map<string, CommandEntity>;
  batch?: BatchEntity;
  bindings: BindingEntity[];
  unbindings: { clientId: string; siteId: string }[];
  deviceConditions: DeviceConditionEntity[];
  deviceConfigurations: DeviceConfigurationEntity[];
  modelOriginMs?: number;
  tokens: TokenEntity[];
  tokensExpiredBeforeMs?: number;
}

export function emptyChange(): StateChange {
  return {
    commands: new Map(),
    bindings: [],
    unbindings: [],
    deviceConditions: [],
    deviceConfigurations: [],
    tokens: [],
  };
}

export function isEmptyChange(change: StateChange): boolean {
  return (
    change.clockOffsetMs === undefined &&
    change.commands.size === 0 &&
    change.batch === undefined &&
    change.bindings.length === 0 &&
    change.unbindings.length === 0 &&
    change.deviceConditions.length === 0 &&
    change.deviceConfigurations.length === 0 &&
    change.modelOriginMs === undefined &&
    change.tokens.length === 0 &&
    change.tokensExpiredBeforeMs === undefined
  );
}

export interface FixtureSeed {
  fixture: string;
  modelOriginMs?: number;
  commands: CommandEntity[];
  bindings: BindingEntity[];
}

/** `reset` replaces all state with a fresh fixture start; tokens survive. */
export interface SandboxPersistence {
  load(): Promise<PersistedState>;
  write(change: StateChange): Promise<void>;
  reset(seed: FixtureSeed): Promise<void>;
  findCommand(id: string): Promise<CommandEntity | undefined>;
  history(range: HistoryRange): Promise<CommandEntity[]>;
  batchCommands(batchCommandId: string): Promise<CommandEntity[]>;
  /** Commands that started and were still in force at `sinceMs` or later (telemetry model). */
  executedSince(sinceMs: number): Promise<CommandEntity[]>;
}

/** Commands in memory only, for unit tests. */
export class MemoryPersistence implements SandboxPersistence {
  private commands = new Map<string, CommandEntity>();

  async load(): Promise<PersistedState> {
    return {
      seededFixture: undefined,
      clockOffsetMs: 0,
      modelOriginMs: undefined,
      bindings: [],
      deviceConditions: [],
      deviceConfigurations: [],
      activeCommands: [],
      batches: [],
      tokens: [],
    };
  }

  async write(change: StateChange): Promise<void> {
    for (const command of change.commands.values()) this.commands.set(command.id, command);
  }

  async reset(seed: FixtureSeed): Promise<void> {
    this.commands = new Map(seed.commands.map((command) => [command.id, command]));
  }

  async findCommand(id: string): Promise<CommandEntity | undefined> {
    return this.commands.get(id);
  }

  async history(range: HistoryRange): Promise<CommandEntity[]> {
    return [...this.commands.values()]
      .filter(
        (c) =>
          c.deviceId === range.deviceId &&
          c.startMs < range.endMs &&
          c.endMs > range.startMs &&
          (range.status === undefined || c.status === range.status),
      )
      .sort(byStart);
  }

  async batchCommands(batchCommandId: string): Promise<CommandEntity[]> {
    return [...this.commands.values()].filter((c) => c.batchCommandId === batchCommandId);
  }

  async executedSince(sinceMs: number): Promise<CommandEntity[]> {
    return [...this.commands.values()].filter((c) => executedSince(c, sinceMs));
  }
}

/** Started, and in force at `sinceMs` or later. */
export function executedSince(command: CommandEntity, sinceMs: number): boolean {
  if (command.startedAtMs === undefined) return false;
  return (command.completedAtMs ?? command.cancelledAtMs ?? Infinity) > sinceMs;
}
