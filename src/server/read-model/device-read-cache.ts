import { LRUCache } from 'lru-cache';
import { accountKey, type Account } from '../events/people.ts';
import type { deviceReadState } from '../db/schema.ts';

/** Devices whose state is kept in memory; the least recently read are dropped first. */
export const DEVICE_READ_CACHE_DEVICES = 20_000;
/** Command records kept in memory, over all devices. */
export const DEVICE_READ_CACHE_COMMANDS = 200_000;
/**
 * How long a device's state is kept at most, ms. Changes of commands are announced to every
 * instance (`deviceCommandsChanged`) and drop it at once; this bounds what is not announced: the
 * time of a device's last read made by another instance.
 */
export const DEVICE_READ_CACHE_TTL_MS = 10_000;

/**
 * What a status read answers of a device, as last read: its version and last read. Nothing else
 * of its state row is kept (whether it is bound, its next read), so writes of only those need not
 * drop it.
 */
export type KeptDeviceState = Pick<typeof deviceReadState.$inferSelect, 'version' | 'readAt'>;

/** What is kept of a command: the store's row of it (`KnownCommand`), by its record's ID. */
interface KeptCommand {
  record: { id: string };
}

interface DeviceEntry {
  state: KeptDeviceState | undefined;
}

interface CommandEntry<Command> {
  /** The device entry it was read under: valid only while that entry is the device's. */
  device: DeviceEntry;
  command: Command;
}

/**
 * The read model's rows that status polls read (docs/architecture.md, Read model; decision 007,
 * section 3), kept in memory so a poll costs no database round trip: each device's state row and
 * the records of its commands asked for, by account and device.
 *
 * Correctness over hits: a device is dropped ({@link invalidate}) after every transaction of this
 * instance that wrote it commits, and when another instance announces a change of it; a fill
 * started before any drop is not kept ({@link fill}), so what is kept is never older than the
 * last change this instance committed or heard of, and an answer never goes backwards.
 * Dropping a device drops its command records with it: each holds the device entry it was read
 * under.
 */
export class DeviceReadCache<Command extends KeptCommand> {
  readonly #devices = new LRUCache<string, DeviceEntry>({
    max: DEVICE_READ_CACHE_DEVICES,
    ttl: DEVICE_READ_CACHE_TTL_MS,
  });
  readonly #commands = new LRUCache<string, CommandEntry<Command>>({
    max: DEVICE_READ_CACHE_COMMANDS,
  });
  /** Grows at each drop; a fill that saw another value at its start is not kept. */
  #epoch = 0;

  /** The kept state and command, or undefined when either is not kept (read the database). */
  get(
    account: Account,
    deviceId: string,
    commandId: string,
  ): { state: KeptDeviceState | undefined; command: Command } | undefined {
    const key = deviceKey(account, deviceId);
    const device = this.#devices.get(key);
    if (!device) return undefined;
    const kept = this.#commands.get(`${key} ${commandId}`);
    if (!kept || kept.device !== device) return undefined;
    return { state: device.state, command: kept.command };
  }

  /** The position to hand to {@link fill}: take it before reading the database. */
  get epoch(): number {
    return this.#epoch;
  }

  /**
   * Keeps what a read of the database found, unless a device was dropped since `epoch` (the
   * read may have seen rows older than that change).
   */
  fill(
    epoch: number,
    account: Account,
    deviceId: string,
    state: KeptDeviceState | undefined,
    command: Command,
  ): void {
    if (epoch !== this.#epoch) return;
    const key = deviceKey(account, deviceId);
    let device = this.#devices.get(key);
    if (!device || (state?.version ?? 0) > (device.state?.version ?? 0)) {
      device = { state: state && { version: state.version, readAt: state.readAt } };
      this.#devices.set(key, device);
    }
    this.#commands.set(`${key} ${command.record.id}`, { device, command });
  }

  /** Drops these devices of the account (every device of it without `deviceIds`). */
  invalidate(account: Account, deviceIds?: Iterable<string>): void {
    this.#epoch += 1;
    if (!deviceIds) {
      const prefix = deviceKey(account, '');
      for (const key of [...this.#devices.keys()])
        if (key.startsWith(prefix)) this.#devices.delete(key);
      return;
    }
    for (const deviceId of deviceIds) this.#devices.delete(deviceKey(account, deviceId));
  }

  /** Drops everything (announcements may have been missed, or every row was deleted). */
  clear(): void {
    this.#epoch += 1;
    this.#devices.clear();
    this.#commands.clear();
  }
}

function deviceKey(account: Account, deviceId: string): string {
  return `${accountKey(account)} ${deviceId}`;
}
