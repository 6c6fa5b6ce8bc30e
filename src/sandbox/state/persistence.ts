import type { CommandStatus } from '../vendor/schemas.ts';
import type { Region } from '../../domain/token.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import type { DeviceCondition } from '../model/lifecycle.ts';

/** A batch command: who sent it, when, to which devices (in request order). */
export interface BatchEntity {
  id: string;
  clientId: string;
  region: Region;
  createdAtMs: number;
  deviceIds: string[];
}

/** An issued access token, kept only as its SHA-256 hash. */
export interface TokenEntity {
  tokenHash: string;
  clientId: string;
  region: Region;
  expiresAtMs: number;
}

/** A site bound to a client; `seq` orders the client's site list (bind order). */
export interface BindingEntity {
  clientId: string;
  siteId: string;
  seq: number;
}

/** A device whose condition differs from the fixture's. */
export interface DeviceConditionEntity extends DeviceCondition {
  deviceId: string;
}

/** What the sandbox loads at start; final commands stay in the store until asked for. */
export interface PersistedState {
  /** The fixture the state was seeded from; `undefined` when never seeded (empty database). */
  seededFixture: string | undefined;
  clockOffsetMs: number;
  bindings: BindingEntity[];
  deviceConditions: DeviceConditionEntity[];
  /** The active (received or executing) commands only. */
  activeCommands: CommandEntity[];
  batches: BatchEntity[];
  tokens: TokenEntity[];
}

/** A history query: commands of a device whose window intersects `[startMs, endMs)`. */
export interface HistoryRange {
  deviceId: string;
  startMs: number;
  endMs: number;
  status?: CommandStatus | undefined;
}

const byStart = (a: CommandEntity, b: CommandEntity) =>
  a.startMs - b.startMs || a.receivedAtMs - b.receivedAtMs || (a.id < b.id ? -1 : 1);

/** One unit of change, written atomically (a batch and its commands never half-written). */
export interface StateChange {
  clockOffsetMs?: number;
  commands: Map<string, CommandEntity>;
  batch?: BatchEntity;
  bindings: BindingEntity[];
  unbindings: { clientId: string; siteId: string }[];
  deviceConditions: DeviceConditionEntity[];
  tokens: TokenEntity[];
  tokensExpiredBeforeMs?: number;
}

export function emptyChange(): StateChange {
  return { commands: new Map(), bindings: [], unbindings: [], deviceConditions: [], tokens: [] };
}

export function isEmptyChange(change: StateChange): boolean {
  return (
    change.clockOffsetMs === undefined &&
    change.commands.size === 0 &&
    change.batch === undefined &&
    change.bindings.length === 0 &&
    change.unbindings.length === 0 &&
    change.deviceConditions.length === 0 &&
    change.tokens.length === 0 &&
    change.tokensExpiredBeforeMs === undefined
  );
}

/**
 * A fresh start of a fixture: its name (with its revision), its generated history and the sites
 * other partners hold.
 */
export interface FixtureSeed {
  fixture: string;
  commands: CommandEntity[];
  bindings: BindingEntity[];
}

/**
 * Where the sandbox's state lives between runs. `write` applies a change in one transaction;
 * `reset` replaces all state with a fresh fixture start (the seed's commands and bindings,
 * nothing else; tokens survive). The queries see every write that has completed.
 */
export interface SandboxPersistence {
  load(): Promise<PersistedState>;
  write(change: StateChange): Promise<void>;
  reset(seed: FixtureSeed): Promise<void>;
  findCommand(id: string): Promise<CommandEntity | undefined>;
  /** Commands of a device whose window intersects the range, by start time. */
  history(range: HistoryRange): Promise<CommandEntity[]>;
  /** The commands of a batch. */
  batchCommands(batchCommandId: string): Promise<CommandEntity[]>;
}

/**
 * Keeps commands in memory only, for unit tests; the rest of the state lives in the sandbox's
 * memory anyway, so `load` after a restart of the process finds nothing.
 */
export class MemoryPersistence implements SandboxPersistence {
  private commands = new Map<string, CommandEntity>();

  async load(): Promise<PersistedState> {
    return {
      seededFixture: undefined,
      clockOffsetMs: 0,
      bindings: [],
      deviceConditions: [],
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
}
