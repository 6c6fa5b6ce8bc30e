import { LRUCache } from 'lru-cache';
import { isFinalStatus, type CommandStatus } from '../../domain/command.ts';
import type { DeviceReadState } from '../../domain/read-model.ts';
import type { deviceReadState } from '../db/schema.ts';
import { accountKey, type Account } from '../../domain/account.ts';

/** Devices whose state is kept in memory; the least recently read are dropped first. */
export const DEVICE_READ_CACHE_DEVICES = 20_000;
/** Command records kept in memory, over all devices. */
export const DEVICE_READ_CACHE_COMMANDS = 200_000;
/**
 * How long a device's state is kept at most, ms. Changes of commands are announced to every
 * instance (`deviceCommandsChanged`) and drop them at once; this bounds what is not announced: the
 * time of a device's last read made by another instance.
 */
export const DEVICE_READ_CACHE_TTL_MS = 10_000;
/** Drops remembered one by one (see {@link DeviceReadCache.epoch}); older ones fold into one. */
const REMEMBERED_DROPS = 100_000;

/**
 * What a status read needs of a device, as last read: whether it is bound (nothing of a device
 * whose site is unbound is answered, docs/security.md), its version and last read. Nothing else of
 * its state row is kept (its next read, its lease), so writes of only those need not drop it; a
 * change of its binding does (`ReadModelStore.markBound`, `markSiteUnbound`).
 */
export type KeptDeviceState = Pick<
  typeof deviceReadState.$inferSelect,
  'bound' | 'version' | 'readAt'
>;

/**
 * A kept device state (`state` undefined: known to have no row) with what a status answer says of
 * it (`view`), made once when kept rather than on every poll.
 */
export interface KeptState {
  state: KeptDeviceState | undefined;
  view: DeviceReadState;
}

/** Where a device stands as a status answer says it: its version and when it was last read. */
export function deviceReadStateOf(state: KeptDeviceState | undefined): DeviceReadState {
  return {
    version: state?.version ?? 0,
    ...(state?.readAt ? { readAt: state.readAt.toISOString() } : {}),
  };
}

/** What is kept of a command: the store's row of it (`KnownCommand`), by its record's ID. */
interface KeptCommand {
  record: { id: string; status: CommandStatus };
}

interface CommandEntry<Command> {
  /** The key of the device it belongs to (account and device). */
  device: string;
  /** The device's commands generation it was read under: valid only while it is the device's. */
  generation: object;
  command: Command;
}

/** A write to drop from the cache: a device's state, one command, or everything of a device. */
export type CacheDrop =
  | { kind: 'state'; deviceId: string }
  | { kind: 'command'; deviceId: string; commandId: string }
  | { kind: 'device'; deviceId: string };

/**
 * The read model's rows that status polls read (docs/architecture.md, Read model; decision 007,
 * section 3), kept in memory so a poll costs no database round trip: each device's state (version,
 * last read) and the records of its commands asked for, by account and device.
 *
 * Correctness over hits: this instance drops a state or a command after the transaction that
 * wrote it commits (`ReadModelStore.transaction`), and every command and the state of a device
 * another instance announces a change of; a fill whose read started before a drop of what it
 * read is not kept ({@link epoch}), so what is kept is never older than the last change this
 * instance committed or heard of, and an answer never goes backwards.
 */
export class DeviceReadCache<Command extends KeptCommand> {
  readonly #states = new LRUCache<string, KeptState>({
    max: DEVICE_READ_CACHE_DEVICES,
    ttl: DEVICE_READ_CACHE_TTL_MS,
  });
  /**
   * By command ID alone, the entry naming its device: a poll then joins one key (the device's),
   * not one per map; a lookup by a freshly joined key costs about 0.35 µs on this machine, most of
   * it flattening and hashing the new string. Command IDs are the vendor's, unique; were one ever
   * shared, the entry's device tells them apart and the other is read from the database.
   */
  readonly #commands = new LRUCache<string, CommandEntry<Command>>({
    max: DEVICE_READ_CACHE_COMMANDS,
  });
  /** Each device's commands generation: replaced to drop all of its commands at once. */
  readonly #generations = new LRUCache<string, object>({ max: DEVICE_READ_CACHE_DEVICES });
  /** The counter of drops; a fill compares it with the drops of what it read. */
  #counter = 0;
  /** When each key was last dropped (counter value). */
  readonly #drops = new LRUCache<string, number>({
    max: REMEMBERED_DROPS,
    // A forgotten drop counts as one of everything at its time: fills older than it are refused.
    dispose: (at, _key, reason) => {
      if (reason === 'evict') this.#floor = Math.max(this.#floor, at);
    },
  });
  /** Fills that started before this are not kept (a drop of everything, or a forgotten one). */
  #floor = 0;

  /** The position to hand to the fills: take it before reading the database. */
  get epoch(): number {
    return this.#counter;
  }

  /**
   * What a status answer reads: the kept command (undefined when not kept) and its device's kept
   * state (`state.state` undefined: known to have no row; undefined: not kept).
   */
  status(
    account: Account,
    deviceId: string,
    commandId: string,
  ): { command: Command | undefined; state: KeptState | undefined } {
    const key = deviceKey(account, deviceId);
    return { command: this.#command(key, commandId), state: this.#states.get(key) };
  }

  /** The device's kept state (`state` undefined: known to have no row; undefined: not kept). */
  state(account: Account, deviceId: string): KeptState | undefined {
    return this.#states.get(deviceKey(account, deviceId));
  }

  #command(key: string, commandId: string): Command | undefined {
    const entry = this.#commands.get(commandId);
    if (entry?.device !== key || entry.generation !== this.#generations.get(key)) return undefined;
    return entry.command;
  }

  /** Keeps the device's state read since `epoch`, unless it was dropped since. */
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

  /** Keeps a command read since `epoch`, unless it was dropped since. */
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

  /** Drops what these writes of the account changed. */
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

  /** Drops every device of the account. */
  dropAccount(account: Account): void {
    this.#counter += 1;
    this.#floor = this.#counter;
    const prefix = deviceKey(account, '');
    for (const key of [...this.#states.keys()])
      if (key.startsWith(prefix)) this.#states.delete(key);
    for (const key of [...this.#generations.keys()])
      if (key.startsWith(prefix)) this.#generations.delete(key);
  }

  /** Drops everything (announcements may have been missed, or every row was deleted). */
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

/** Whether `kept` is later than `read`: a higher version, or the same one read later. */
function isNewerState(kept: KeptDeviceState, read: KeptDeviceState): boolean {
  if (kept.version !== read.version) return kept.version > read.version;
  return (kept.readAt?.getTime() ?? 0) > (read.readAt?.getTime() ?? 0);
}

/** How far a command got: waiting, running, final (a status never goes back). */
function stageOf(command: KeptCommand): number {
  const { status } = command.record;
  return isFinalStatus(status) ? 2 : status === 'executing' ? 1 : 0;
}

function deviceKey(account: Account, deviceId: string): string {
  return `${accountKey(account)} ${deviceId}`;
}
