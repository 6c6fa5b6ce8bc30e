import type { Region } from '../../domain/token.ts';
import type { CommandEntity } from '../model/command-entity.ts';
import type { DeviceCondition } from '../model/lifecycle.ts';

/** A batch command: who sent it and when; its commands carry its ID. */
export interface BatchEntity {
  id: string;
  clientId: string;
  region: Region;
  createdAtMs: number;
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

/** Everything the sandbox keeps between runs. */
export interface PersistedState {
  /** The fixture the state was seeded from; `undefined` when never seeded (empty database). */
  seededFixture: string | undefined;
  clockOffsetMs: number;
  bindings: BindingEntity[];
  deviceConditions: DeviceConditionEntity[];
  commands: CommandEntity[];
  batches: BatchEntity[];
  tokens: TokenEntity[];
}

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

/** A fresh start of a fixture: its name and its generated history. */
export interface FixtureSeed {
  fixture: string;
  commands: CommandEntity[];
}

/**
 * Where the sandbox's state lives between runs. `write` applies a change in one transaction;
 * `reset` replaces all state with a fresh fixture start (the seed's commands, nothing else;
 * tokens survive).
 */
export interface SandboxPersistence {
  load(): Promise<PersistedState>;
  write(change: StateChange): Promise<void>;
  reset(seed: FixtureSeed): Promise<void>;
}

/** Keeps nothing: state lives in memory only (unit tests). */
export class MemoryPersistence implements SandboxPersistence {
  async load(): Promise<PersistedState> {
    return {
      seededFixture: undefined,
      clockOffsetMs: 0,
      bindings: [],
      deviceConditions: [],
      commands: [],
      batches: [],
      tokens: [],
    };
  }

  async write(): Promise<void> {}

  async reset(): Promise<void> {}
}
