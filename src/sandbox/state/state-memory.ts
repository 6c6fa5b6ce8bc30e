import type { SandboxClock } from '../clock.ts';
import type { Catalog } from '../fixtures/catalog.ts';
import { ActiveCommands } from './active-commands.ts';
import { DeviceCallLimit } from './device-call-limit.ts';
import { DeviceConditions } from './device-conditions.ts';
import type { BatchEntity, PersistedState, SandboxPersistence } from './persistence.ts';
import { SiteBindings } from './site-bindings.ts';
import { TelemetryStore } from './telemetry-store.ts';
import { TokenStore } from './token-store.ts';

/**
 * What the sandbox state's operations work on: the fixture, the clock, the store, and the part
 * of the state kept in memory (what can still change). Operations take it as a parameter and
 * run one at a time, inside `SandboxState`'s queue.
 */
export interface StateMemory {
  readonly catalog: Catalog;
  readonly clock: SandboxClock;
  readonly persistence: SandboxPersistence;
  readonly active: ActiveCommands;
  readonly bindings: SiteBindings;
  readonly conditions: DeviceConditions;
  readonly tokens: TokenStore;
  /** Batches by ID; their commands are in {@link ActiveCommands} or the store. */
  readonly batches: Map<string, BatchEntity>;
  /** The vendor's rate limit per device; never persisted. */
  readonly deviceCalls: DeviceCallLimit;
  /** What telemetry is computed from, fed by every written change (src/sandbox/README.md). */
  readonly telemetry: TelemetryStore;
}

/**
 * An empty memory over the fixture's catalog, the clock and the store; `deviceCallsPerMinute` is
 * the rate limit's start value (docs/upstream.md, Rate limit; 0 = off).
 */
export function emptyStateMemory(
  catalog: Catalog,
  clock: SandboxClock,
  persistence: SandboxPersistence,
  deviceCallsPerMinute?: number,
): StateMemory {
  return {
    catalog,
    clock,
    persistence,
    active: new ActiveCommands(),
    bindings: new SiteBindings(),
    conditions: new DeviceConditions(),
    tokens: new TokenStore(),
    batches: new Map(),
    deviceCalls: new DeviceCallLimit(deviceCallsPerMinute),
    telemetry: new TelemetryStore(catalog),
  };
}

/** Replaces everything in memory, and the clock's offset, with a persisted state. */
export function adoptPersistedState(memory: StateMemory, state: PersistedState): void {
  memory.clock.restore(state.clockOffsetMs);
  memory.active.adopt(state.activeCommands);
  memory.batches.clear();
  for (const batch of state.batches) memory.batches.set(batch.id, batch);
  memory.bindings.adopt(state.bindings);
  memory.conditions.adopt(state.deviceConditions);
  memory.tokens.adopt(state.tokens);
}
