import type { FastifyBaseLogger } from 'fastify';
import type { StatusRecord } from '../../domain/command.ts';
import { isFinalStatus } from '../../domain/command.ts';
import { NOTIFIED_CANCELLATION_REASONS } from '../../domain/notifications.ts';
import { POWER_CONTROL_PROPERTIES } from '../../domain/power-control.ts';
import {
  changeKindOf,
  mergeStatusRecord,
  type DeviceCommandChange,
  type DeviceVersion,
} from '../../domain/read-model.ts';
import {
  DEFAULT_REFRESH_SETTINGS,
  nextReadOf,
  type RefreshSettings,
} from '../../domain/refresh-policy.ts';
import type { AccountEvents } from '../events/account-events.ts';
import type { Queryable } from '../events/event-store.ts';
import { personKey, personOf, type Account, type Actor } from '../../domain/account.ts';
import { madeByName } from '../ledger/device-commands-recorder.ts';
import type { LedgerRow, LedgerStore } from '../ledger/ledger-store.ts';
import type { Notifications } from '../notifications/notifications.ts';
import type { SecretBox } from '../session/secret-box.ts';
import {
  ReadModelStore,
  type ConfirmationRow,
  type DeviceStateRow,
  type KnownCommand,
} from './read-model-store.ts';

/** What changed in the read model, told to listeners after it committed (the fleet's outcomes). */
export interface ReadModelChange {
  account: Account;
  /** Records that changed in any way (a new command, a cancellation, the lifecycle going on). */
  records: StatusRecord[];
  /** Batch ledger entries whose device commands were found (or given up) by this change. */
  ledgerEntries: LedgerRow[];
}

/** What the read model is made with (see {@link ReadModelCore}'s constructor). */
export interface ReadModelOptions {
  store: ReadModelStore;
  ledger: LedgerStore;
  events?: AccountEvents | undefined;
  notifications?: Notifications | undefined;
  now: () => number;
  settings?: RefreshSettings | undefined;
  log: FastifyBaseLogger;
  box?: SecretBox | undefined;
}

/**
 * How the read model changes a device (docs/architecture.md, Read model), shared by its parts
 * (`read-model-recording.ts`, `read-model-sites.ts`, `read-model-answers.ts`,
 * `read-model-refresh.ts`) and seen by nothing else: `ReadModel` (`read-model.ts`) is the face.
 * Each change is one transaction per device, holding the device's state row: the records learnt
 * merged in ({@link ReadModelCore.learn}), the device's next read planned
 * ({@link ReadModelCore.plan}), and `deviceCommandsChanged` published last with the device's
 * version ({@link ReadModelCore.publish}); notifications of what a change learnt (a device's
 * cancellation, a batch's failed devices) go in the same transaction, and listeners are told
 * after it committed ({@link ReadModelCore.tell}).
 */
export class ReadModelCore {
  readonly store: ReadModelStore;
  readonly ledger: LedgerStore;
  readonly events: AccountEvents | undefined;
  readonly notifications: Notifications | undefined;
  readonly now: () => number;
  readonly settings: RefreshSettings;
  readonly log: FastifyBaseLogger;
  readonly box: SecretBox | undefined;
  readonly listeners: ((change: ReadModelChange) => Promise<void>)[] = [];
  /** Woken when a device became due sooner (the refresher's `wake`). */
  onDue: (() => void) | undefined;

  /**
   * @param options.now the upstream's clock, epoch ms: reads are planned on it.
   * @param options.box seals the secrets the refresher reads under; without it nothing is read.
   */
  constructor(options: ReadModelOptions) {
    this.store = options.store;
    this.ledger = options.ledger;
    this.events = options.events;
    this.notifications = options.notifications;
    this.now = options.now;
    this.settings = options.settings ?? DEFAULT_REFRESH_SETTINGS;
    this.log = options.log;
    this.box = options.box;
    // Changes other instances made drop the devices kept in memory (this instance's own drop them
    // as their transactions end).
    this.events?.onDevicesChanged((changed, deviceIds) => {
      if (!changed) this.store.cache.clear();
      else if (!deviceIds) this.store.cache.dropAccount(changed);
      else
        this.store.cache.drop(
          changed,
          deviceIds.map((deviceId) => ({ kind: 'device', deviceId })),
        );
    });
  }

  /** Learns records of one device in a transaction of its own, publishes, tells listeners. */
  async learnNow(
    account: Account,
    deviceId: string,
    learnt: Learnt[],
    options: { readSoon?: boolean } = {},
  ): Promise<DeviceVersion> {
    const nowMs = this.now();
    const change: ReadModelChange = { account, records: [], ledgerEntries: [] };
    const version = await this.store.transaction(async (tx) => {
      const state = await this.store.lockDevice(tx, account, deviceId, nowMs);
      const learning = await this.learn(tx, account, deviceId, state, learnt, nowMs);
      change.records = learning.records;
      await this.plan(tx, account, deviceId, {
        nowMs,
        readAtMs: state.readAt?.getTime(),
        slotsRequested: state.slotsRequested,
        dueNow: options.readSoon,
        set: {},
      });
      await this.publish(tx, account, deviceId, learning, []);
      return learning.version;
    });
    await this.tell(change);
    return version;
  }

  /**
   * Merges `learnt` into the device's commands (its lock held): each record as
   * `mergeStatusRecord` leaves it, a change and one more version per new command or
   * cancellation, a notification for a cancellation nobody chose of a command known open, and
   * the control a `notSupported` command showed the device lacks.
   */
  async learn(
    tx: Queryable,
    account: Account,
    deviceId: string,
    state: DeviceStateRow,
    learnt: readonly Learnt[],
    nowMs: number,
  ): Promise<Learning> {
    const known = await this.store.commandsByIds(
      tx,
      account,
      deviceId,
      learnt.map((item) => item.record.id),
    );
    let version = state.version;
    const records: StatusRecord[] = [];
    const changes: DeviceCommandChange[] = [];
    let capabilitiesChanged = false;
    for (const item of learnt) {
      const before = known.get(item.record.id);
      const merged = mergeStatusRecord(before?.record, { ...item.record, deviceId });
      if (before && JSON.stringify(before.record) === JSON.stringify(merged)) continue;
      await this.store.writeCommand(tx, account, merged, nowMs, item.madeBy);
      records.push(merged);
      const kind = changeKindOf(before?.record, merged);
      // Who sent the command; who made this change: a new command its sender, an operator's
      // cancel the one this call records, a cancellation by the device or the vendor nobody.
      const sender = item.madeBy ?? (before ? actorOf(before) : undefined);
      const changeMaker =
        kind === 'commandAdded'
          ? sender
          : merged.cancelReason === 'manuallyCancel'
            ? item.madeBy
            : undefined;
      if (kind) {
        version += 1;
        const changeBy = madeByName(changeMaker);
        const change: DeviceCommandChange = {
          version,
          kind,
          deviceId,
          commandId: merged.id,
          startTime: merged.startTime,
          endTime: merged.endTime,
          at:
            kind === 'commandCancelled'
              ? (merged.cancelledAt ?? new Date(nowMs).toISOString())
              : merged.receivedAt,
          ...(kind === 'commandCancelled' && merged.cancelReason
            ? { cancelReason: merged.cancelReason }
            : {}),
          ...(merged.batchCommandId ? { batchCommandId: merged.batchCommandId } : {}),
          ...(changeBy ? { madeBy: changeBy } : {}),
        };
        changes.push(change);
        await this.store.appendChange(
          tx,
          account,
          change,
          changeMaker ? personKey(changeMaker.person) : undefined,
          nowMs,
        );
      }
      const wasOpen = before !== undefined && !isFinalStatus(before.record.status);
      if (kind === 'commandCancelled' && (wasOpen || item.sentByUs)) {
        await this.#commandCancelled(tx, account, state, merged, sender);
        if (merged.cancelReason === 'notSupported')
          capabilitiesChanged =
            (await this.#learnUnsupported(tx, account, deviceId, merged, nowMs)) ||
            capabilitiesChanged;
      }
    }
    return { version, versionBefore: state.version, records, changes, capabilitiesChanged };
  }

  /**
   * Writes the device's version and plans its next read from what it holds now
   * (`nextReadOf`): its open commands, the batches looked for on it, the ranges asked for.
   */
  async plan(
    tx: Queryable,
    account: Account,
    deviceId: string,
    input: {
      nowMs: number;
      readAtMs: number | undefined;
      slotsRequested: readonly number[];
      notBeforeMs?: number | undefined;
      dueNow?: boolean | undefined;
      version?: number | undefined;
      set: Partial<DeviceStateRow>;
    },
  ): Promise<void> {
    const openCommands = await this.store.openCommands(tx, account, deviceId);
    const confirmations = await this.store.confirmationsOf(tx, account, deviceId);
    const next = nextReadOf(
      {
        lastReadAtMs: input.readAtMs,
        openCommands,
        confirmations: confirmations.map(ReadModelStore.pendingOf),
        requestedSlots: input.slotsRequested,
      },
      input.nowMs,
      this.settings,
    );
    let atMs = input.dueNow ? input.nowMs : next?.atMs;
    if (atMs !== undefined && input.notBeforeMs !== undefined)
      atMs = Math.max(atMs, input.notBeforeMs);
    await this.store.updateState(tx, account, deviceId, {
      ...input.set,
      hasOpenCommands: openCommands.length > 0,
      nextReadAt: atMs === undefined ? null : new Date(atMs),
      nextReadReason: input.dueNow ? 'stillOpen' : (next?.reason ?? null),
      updatedAt: new Date(input.nowMs),
    });
    if (atMs !== undefined && atMs <= input.nowMs + this.settings.allowanceMs) this.onDue?.();
  }

  /** Publishes what changed on the device, last in its transaction. */
  async publish(
    tx: Queryable,
    account: Account,
    deviceId: string,
    learning: Learning,
    ledgerEntries: readonly LedgerRow[],
  ): Promise<void> {
    if (learning.version !== learning.versionBefore)
      await this.store.updateState(tx, account, deviceId, { version: learning.version });
    if (!this.events) return;
    for (const entry of ledgerEntries)
      await this.events.publish(
        account,
        { type: 'ledgerEntryChanged', data: { id: String(entry.id), kind: entry.kind } },
        { tx },
      );
    if (learning.capabilitiesChanged)
      await this.events.publish(
        account,
        { type: 'deviceCapabilitiesChanged', data: { deviceIds: [deviceId] } },
        { tx },
      );
    if (learning.records.length > 0)
      await this.events.publish(
        account,
        {
          type: 'deviceCommandsChanged',
          data: { deviceIds: [deviceId], versions: { [deviceId]: learning.version } },
        },
        { tx },
      );
  }

  async tell(change: ReadModelChange): Promise<void> {
    if (change.records.length === 0 && change.ledgerEntries.length === 0) return;
    for (const listener of this.listeners)
      await listener(change).catch((error: unknown) =>
        this.log.warn({ err: error }, 'read model: a listener of its changes failed'),
      );
  }

  async addConfirmations(account: Account, rows: ConfirmationRow[]): Promise<void> {
    if (rows.length === 0) return;
    const nowMs = this.now();
    await this.store.transaction(async (tx) => {
      const states = await this.store.lockDevices(
        tx,
        account,
        rows.map((row) => row.deviceId),
        nowMs,
      );
      await this.store.addConfirmations(tx, account, rows);
      for (const [deviceId, state] of states)
        await this.plan(tx, account, deviceId, {
          nowMs,
          readAtMs: state.readAt?.getTime(),
          slotsRequested: state.slotsRequested,
          set: {},
        });
    });
  }

  /**
   * A batch whose device commands are all found or given up: its sender is told of its failed
   * devices (not found after the window, or cancelled at once for overlap). A fleet job's batch
   * is the job's to tell (fleet-outcomes.ts).
   */
  async batchSettled(
    tx: Queryable,
    account: Account,
    entry: LedgerRow,
    outcome: NonNullable<Awaited<ReturnType<LedgerStore['confirmBatchIn']>>>['outcome'],
  ): Promise<void> {
    if (!this.notifications || !entry.batchCommandId) return;
    if (entry.idempotencyKey?.startsWith('fleet-job:')) return;
    const notFound = (outcome.unconfirmed ?? []).filter((d) => d.state === 'notFound').length;
    const commands = outcome.commands ?? [];
    const records = await this.store.commandsOf(
      account,
      commands.map((c) => ({ deviceId: c.deviceId, commandId: c.id })),
      tx,
    );
    const overlapped = [...records.values()].filter(
      (record) => record.status === 'cancelled' && record.cancelReason === 'timeWindowOverlap',
    ).length;
    const failed = notFound + overlapped;
    if (failed === 0) return;
    await this.notifications.notify(
      {
        account,
        kind: 'batchDevicesFailed',
        batchCommandId: entry.batchCommandId,
        failedDevices: failed,
        totalDevices: commands.length + (outcome.unconfirmed ?? []).length,
        ...(entry.siteId ? { siteId: entry.siteId } : {}),
        ...(entry.timeZone ? { timeZone: entry.timeZone } : {}),
        madeBy: personOf({
          ...(entry.operatorIssuer && entry.operatorSubject
            ? { operator: { issuer: entry.operatorIssuer, subject: entry.operatorSubject } }
            : {}),
          operatorName: entry.operatorName,
        }),
      },
      { tx },
    );
  }

  /**
   * A command cancelled for a reason nobody chose (`deviceFault`, `notSupported`,
   * `startTimeExpire`): its sender is told (notification-rules.ts), or everyone of the account
   * for a command not sent through powerdeck.
   */
  async #commandCancelled(
    tx: Queryable,
    account: Account,
    state: DeviceStateRow,
    record: StatusRecord,
    madeBy: Actor | undefined,
  ): Promise<void> {
    const reason = record.cancelReason;
    if (!this.notifications || !reason) return;
    if (!(NOTIFIED_CANCELLATION_REASONS as readonly string[]).includes(reason)) return;
    const entry = await this.ledger.findByCommand(account, record.deviceId, record.id, tx);
    const sender =
      madeBy?.person ??
      (entry
        ? personOf({
            ...(entry.operatorIssuer && entry.operatorSubject
              ? { operator: { issuer: entry.operatorIssuer, subject: entry.operatorSubject } }
              : {}),
            operatorName: entry.operatorName,
          })
        : undefined);
    const siteId = entry?.siteId ?? state.siteId ?? undefined;
    await this.notifications.notify(
      {
        account,
        kind: 'commandCancelled',
        deviceId: record.deviceId,
        commandId: record.id,
        cancelReason: reason as (typeof NOTIFIED_CANCELLATION_REASONS)[number],
        ...(siteId ? { siteId } : {}),
        ...(entry?.timeZone ? { timeZone: entry.timeZone } : {}),
        startTime: record.startTime,
        endTime: record.endTime,
        madeBy: sender,
      },
      { tx },
    );
  }

  /**
   * A command ended `notSupported`: the device lacks one of its controls (docs/upstream.md,
   * Lifecycle). The vendor does not say which; the one the command asked for that no started
   * command of the device ran is it, when exactly one is left.
   */
  async #learnUnsupported(
    tx: Queryable,
    account: Account,
    deviceId: string,
    record: StatusRecord,
    nowMs: number,
  ): Promise<boolean> {
    const used = await this.store.controlsUsed(tx, account, deviceId);
    const asked = POWER_CONTROL_PROPERTIES.filter(
      (control) => record.powerControl[control] !== undefined && !used.has(control),
    );
    if (asked.length !== 1) return false;
    return this.store.learnUnsupported(tx, account, deviceId, asked, record.id, nowMs);
  }
}

/** A record learnt, with who sent it when it went through powerdeck. */
export interface Learnt {
  record: StatusRecord;
  madeBy?: Actor | undefined;
  /** Found for a batch powerdeck sent: what it already came to is news to its sender. */
  sentByUs?: boolean;
}

/** What {@link ReadModelCore.learn} did to a device. */
export interface Learning {
  version: number;
  versionBefore: number;
  records: StatusRecord[];
  changes: DeviceCommandChange[];
  capabilitiesChanged: boolean;
}

function actorOf(command: KnownCommand): Actor | undefined {
  return command.madeBy
    ? { person: command.madeBy, ...(command.madeByName ? { name: command.madeByName } : {}) }
    : undefined;
}

/** Only the account of `account` (a session or caller passes as one, with its secret). */
export function accountOf(account: Account): Account {
  return { region: account.region, clientId: account.clientId };
}
