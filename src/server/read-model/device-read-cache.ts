import { LRUCache } from 'lru-cache';
import { isFinalStatus, type CommandStatus } from '#domain/command.ts';
import type { DeviceReadState } from '#domain/read-model.ts';
import type { deviceReadState } from '../db/schema.ts';
import { accountKey, type Account } from '#domain/account.ts';

/** The least recently read are dropped first. */
export const DEVICE_READ_CACHE_DEVICES = 20_000;
export const DEVICE_READ_CACHE_COMMANDS = 200_000;
/** Bounds what is not announced (`deviceCommandsChanged`): another instance's last read, ms. */
export const DEVICE_READ_CACHE_TTL_MS = 10_000;
/** Older drops fold into one (see {@link DeviceReadCache.epoch}). */
const REMEMBERED_DROPS = 100_000;

/**
 * Only what a status read needs; a change of binding drops it (`ReadModelStore.markBound`,
 * `markSiteUnbound`): nothing of an unbound device is answered (docs/security.md).
 */
export type KeptDeviceState = Pick<
  typeof deviceReadState.$inferSelect,
  'bound' | 'version' | 'readAt'
>;

/** `state` undefined: known to have no row; `view` made once when kept, not on every poll. */
export interface KeptState {
  state: KeptDeviceState | undefined;
  view: DeviceReadState;
}

export function deviceReadStateOf(state: KeptDeviceState | undefined): DeviceReadState {
  return {
    version: state?.version ?? 0,
    ...(state?.readAt ? { readAt: state.readAt.toISOString() } : {}),
  };
}

interface KeptCommand {
  record: { id: string; status: CommandStatus };
}

interface CommandEntry<Command> {
  device: string;
  /** Valid only while it is the device's generation. */
  generation: object;
  command: Command;
}

export type CacheDrop =
  | { kind: 'state'; deviceId: string }
  | { kind: 'command'; deviceId: string; commandId: string }
  | { kind: 'device'; deviceId: string };

/**
 * The read model's rows status polls read, in memory so a poll costs no database round trip
 * (docs/architecture.md, Read model). Correctness over hits: a write drops what it changed after
 * commit, announced changes of other instances too, and a fill whose read started before a drop is
 * not kept ({@link epoch}), so an answer never goes backwards.
 */
export class DeviceReadCache<Command extends KeptCommand> {
  readonly #states = new LRUCache<string, KeptState>({
    max: DEVICE_READ_CACHE_DEVICES,
    ttl: DEVICE_READ_CACHE_TTL_MS,
  });
  /** By command ID alone (one joined key per poll); the entry's device tells shared IDs apart. */
  readonly #commands = new LRUCache<string, CommandEntry<Command>>({
    max: DEVICE_READ_CACHE_COMMANDS,
  });
  /** Replaced to drop all of a device's commands at once. */
  readonly #generations = new LRUCache<string, object>({ max: DEVICE_READ_CACHE_DEVICES });
  #counter = 0;
  readonly #drops = new LRUCache<string, number>({
    max: REMEMBERED_DROPS,
    // A forgotten drop counts as one of everything at its time: fills older than it are refused.
    dispose: (at, _key, reason) => {
      if (reason === 'evict') this.#floor = Math.max(this.#floor, at);
    },
  });
  #floor = 0;

  /** Take it before reading the database. */
  get epoch(): number {
    return this.#counter;
  }

  status(
    account: Account,
    deviceId: string,
    commandId: string,
  ): { command: Command | undefined; state: KeptState | undefined } {
    const key = deviceKey(account, deviceId);
    return { command: this.#command(key, commandId), state: this.#states.get(key) };
  }

  state(account: Account, deviceId: string): KeptState | undefined {
    return this.#states.get(deviceKey(account, deviceId));
  }

  #command(key: string, commandId: string): Command | undefined {
    const entry = this.#commands.get(commandId);
    if (entry?.device !== key || entry.generation !== this.#generations.get(key)) return undefined;
    return entry.command;
  }

  keepState(
    epoch: number,
    account: Account,
    deviceId: string,
    state: KeptDeviceState | undefined,
  ): void {
    const key = deviceKey(account, deviceId);
    if (this.#droppedSince(epoch, `s ${key}`, `d ${key}`)) return;
    // Two reads of one epoch may end in either order (another instance wrote in between).
    const before = this.#states.get(key)?.state;
    if (before && state && isNewerState(before, state)) return;
    const kept = state && { bound: state.bound, version: state.version, readAt: state.readAt };
    this.#states.set(key, { state: kept, view: deviceReadStateOf(kept) });
  }

  keepCommand(epoch: number, account: Account, deviceId: string, command: Command): void {
    const key = deviceKey(account, deviceId);
    const commandKey = `${key} ${command.record.id}`;
    if (this.#droppedSince(epoch, `c ${commandKey}`, `d ${key}`)) return;
    let generation = this.#generations.get(key);
    if (!generation) {
      generation = {};
      this.#generations.set(key, generation);
    }
    const kept = this.#commands.get(command.record.id);
    if (
      kept?.device === key &&
      kept.generation === generation &&
      stageOf(kept.command) > stageOf(command)
    )
      return;
    this.#commands.set(command.record.id, { device: key, generation, command });
  }

  drop(account: Account, drops: Iterable<CacheDrop>): void {
    for (const drop of drops) {
      const key = deviceKey(account, drop.deviceId);
      this.#counter += 1;
      if (drop.kind === 'command') {
        if (this.#commands.peek(drop.commandId)?.device === key)
          this.#commands.delete(drop.commandId);
        this.#drops.set(`c ${key} ${drop.commandId}`, this.#counter);
        continue;
      }
      this.#states.delete(key);
      this.#drops.set(`${drop.kind === 'state' ? 's' : 'd'} ${key}`, this.#counter);
      if (drop.kind === 'device') this.#generations.delete(key);
    }
  }

  dropAccount(account: Account): void {
    this.#counter += 1;
    this.#floor = this.#counter;
    const prefix = deviceKey(account, '');
    for (const key of [...this.#states.keys()])
      if (key.startsWith(prefix)) this.#states.delete(key);
    for (const key of [...this.#generations.keys()])
      if (key.startsWith(prefix)) this.#generations.delete(key);
  }

  /** Announcements may have been missed, or every row was deleted. */
  clear(): void {
    this.#counter += 1;
    this.#floor = this.#counter;
    this.#states.clear();
    this.#commands.clear();
    this.#generations.clear();
  }

  #droppedSince(epoch: number, ...keys: string[]): boolean {
    if (this.#floor > epoch) return true;
    return keys.some((key) => (this.#drops.get(key) ?? 0) > epoch);
  }
}

function isNewerState(kept: KeptDeviceState, read: KeptDeviceState): boolean {
  if (kept.version !== read.version) return kept.version > read.version;
  return (kept.readAt?.getTime() ?? 0) > (read.readAt?.getTime() ?? 0);
}

/** A status never goes back. */
function stageOf(command: KeptCommand): number {
  const { status } = command.record;
  return isFinalStatus(status) ? 2 : status === 'executing' ? 1 : 0;
}

function deviceKey(account: Account, deviceId: string): string {
  return `${accountKey(account)} ${deviceId}`;
}
