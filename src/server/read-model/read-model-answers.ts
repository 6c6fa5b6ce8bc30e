import type { CommandStatus, StatusRecord } from '#domain/command.ts';
import { historyRangeSlots } from '#domain/history.ts';
import type { DeviceCommandsView, DeviceReadState } from '#domain/read-model.ts';
import type { Account } from '#domain/account.ts';
import type { Queryable } from '../events/event-store.ts';
import type { DeviceStateRow } from './read-model-tables.ts';
import { deviceReadStateOf, type KeptState } from './device-read-cache.ts';
import { accountOf, type ReadModelCore } from './read-model-core.ts';

/**
 * What browsers read of device commands, from the read model (docs/architecture.md, Read model).
 * A part of `ReadModel` (`read-model.ts`), which is what others import.
 */
export class ReadModelAnswers {
  readonly #core: ReadModelCore;

  constructor(core: ReadModelCore) {
    this.#core = core;
  }

  /**
   * Ranges never read are read soon; the answer says so (`historyPending`).
   *
   * @param siteId the device's site, when the caller has just checked it is bound.
   */
  async history(
    account: Account,
    deviceId: string,
    range: { startMs: number; endMs: number },
    status?: CommandStatus,
  ): Promise<DeviceCommandsView> {
    account = accountOf(account);
    const slots = historyRangeSlots(range.startMs, range.endMs).map((slot) => slot.startMs);
    let state = await this.#core.store.stateOf(account, deviceId);
    const unread = slots.filter((slot) => !state?.slotsRead.includes(slot));
    const unasked = unread.filter((slot) => !state?.slotsRequested.includes(slot));
    if (unasked.length > 0) state = await this.#requestSlots(account, deviceId, unasked);
    const commands = await this.#core.store.commandsMeeting(account, deviceId, range, status);
    return {
      deviceId,
      commands,
      ...deviceReadStateOf(state),
      ...(unread.length > 0 ? { historyPending: true } : {}),
    };
  }

  /** Does not check binding: answer a browser only after {@link isBound}. */
  async status(
    account: Account,
    deviceId: string,
    commandId: string,
  ): Promise<{ record: StatusRecord; device: DeviceReadState } | undefined> {
    account = accountOf(account);
    // Polled by every open tab: from memory while nothing of the device changed.
    const { cache } = this.#core.store;
    const epoch = cache.epoch;
    const kept = cache.status(account, deviceId, commandId);
    let command = kept.command;
    if (!command) {
      command = (
        await this.#core.store.commandsByIds(this.#core.store.db, account, deviceId, [commandId])
      ).get(commandId);
      if (!command) return undefined;
      cache.keepCommand(epoch, account, deviceId, command);
    }
    const device = (kept.state ?? (await this.#keptState(account, deviceId))).view;
    return { record: command.record, device };
  }

  /** False too when it never heard of the device. From memory, so every poll can ask it (docs/security.md). */
  async isBound(account: Account, deviceId: string): Promise<boolean> {
    account = accountOf(account);
    const kept =
      this.#core.store.cache.state(account, deviceId) ?? (await this.#keptState(account, deviceId));
    return kept.state?.bound ?? false;
  }

  /** @param tx read within it (a caller's transaction), else alone. */
  async stateOf(
    account: Account,
    deviceId: string,
    tx?: Queryable,
  ): Promise<DeviceStateRow | undefined> {
    account = accountOf(account);
    return this.#core.store.stateOf(account, deviceId, tx);
  }

  unboundOf(account: Account, deviceIds: readonly string[]): Promise<Set<string>> {
    account = accountOf(account);
    return this.#core.store.unboundOf(account, deviceIds);
  }

  /** Key `deviceId commandId`. */
  commands(
    account: Account,
    refs: readonly { deviceId: string; commandId: string }[],
  ): Promise<Map<string, StatusRecord>> {
    account = accountOf(account);
    return this.#core.store.commandsOf(account, refs);
  }

  unsupportedControls(account: Account): Promise<Map<string, Set<string>>> {
    account = accountOf(account);
    return this.#core.store.unsupportedOf(account);
  }

  async #requestSlots(
    account: Account,
    deviceId: string,
    slots: readonly number[],
  ): Promise<DeviceStateRow | undefined> {
    const nowMs = this.#core.now();
    await this.#core.store.transaction(async (tx) => {
      const state = await this.#core.store.lockDevice(tx, account, deviceId, nowMs);
      const slotsRequested = [...new Set([...state.slotsRequested, ...slots])].sort(
        (a, b) => a - b,
      );
      await this.#core.plan(tx, account, deviceId, {
        nowMs,
        readAtMs: state.readAt?.getTime(),
        slotsRequested,
        set: { slotsRequested },
      });
    });
    return this.#core.store.stateOf(account, deviceId);
  }

  async #keptState(account: Account, deviceId: string): Promise<KeptState> {
    const { cache } = this.#core.store;
    const epoch = cache.epoch;
    const read = await this.#core.store.stateOf(account, deviceId);
    cache.keepState(epoch, account, deviceId, read);
    const state = read && { bound: read.bound, version: read.version, readAt: read.readAt };
    return { state, view: deviceReadStateOf(state) };
  }
}
