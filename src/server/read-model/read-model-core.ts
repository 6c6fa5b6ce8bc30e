import type { FastifyBaseLogger } from 'fastify';
import type { StatusRecord } from '#domain/command.ts';
import { isFinalStatus } from '#domain/command.ts';
import { NOTIFIED_CANCELLATION_REASONS } from '#domain/notifications.ts';
import { POWER_CONTROL_PROPERTIES } from '#domain/power-control.ts';
import {
  changeKindOf,
  mergeStatusRecord,
  type DeviceCommandChange,
  type DeviceVersion,
} from '#domain/read-model.ts';
import {
  DEFAULT_REFRESH_SETTINGS,
  nextReadOf,
  type RefreshSettings,
} from '#domain/refresh-policy.ts';
import type { AccountEvents } from '../events/account-events.ts';
import type { Queryable } from '../events/event-store.ts';
import { personKey, personOf, type Account, type Actor } from '#domain/account.ts';
import { madeByName } from '../ledger/device-commands-recorder.ts';
import type { LedgerRow } from '../ledger/ledger-rows.ts';
import type { LedgerStore } from '../ledger/ledger-store.ts';
import type { Notifications } from '../notifications/notifications.ts';
import type { SecretBox } from '../session/secret-box.ts';
import { webhookLinks } from '../webhooks/webhook-links.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import { ReadModelStore, type ConfirmationRow } from './read-model-store.ts';
import type { DeviceStateRow, KnownCommand } from './read-model-tables.ts';

/**
 * A command first learnt long after its window ended (a newly bound site's past) tells no webhook:
 * nobody waits for it, and a site's month would be a flood.
 */
export const WEBHOOK_PAST_HORIZON_MS = 60 * 60_000;

function isPast(before: KnownCommand | undefined, record: StatusRecord, nowMs: number): boolean {
  return (
    before === undefined &&
    isFinalStatus(record.status) &&
    Date.parse(record.endTime) < nowMs - WEBHOOK_PAST_HORIZON_MS
  );
}

/** Told to listeners after it committed. */
export interface ReadModelChange {
  account: Account;
  records: StatusRecord[];
  ledgerEntries: LedgerRow[];
}

export interface ReadModelOptions {
  store: ReadModelStore;
  ledger: LedgerStore;
  events?: AccountEvents | undefined;
  notifications?: Notifications | undefined;
  now: () => number;
  settings?: RefreshSettings | undefined;
  log: FastifyBaseLogger;
  box?: SecretBox | undefined;
  /** Outgoing webhooks: what the read model learns is written to their outbox in its transaction. */
  webhooks?: WebhookOutbox | undefined;
}

/**
 * How the read model changes a device (docs/architecture.md, Read model), shared by its parts;
 * `ReadModel` is the face. One transaction per device, holding its state row: learn, plan,
 * publish last; listeners are told after commit ({@link ReadModelCore.tell}).
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
  readonly webhooks: WebhookOutbox | undefined;
  readonly listeners: ((change: ReadModelChange) => Promise<void>)[] = [];
  onDue: (() => void) | undefined;

  /**
   * @param options.now the upstream's clock, epoch ms.
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
    this.webhooks = options.webhooks;
    // Other instances' changes; this instance's own drop as their transactions end.
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

  /** Call with the device's lock held. */
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
      if (before?.record.status !== merged.status && !isPast(before, merged, nowMs))
        await this.webhooks?.record(
          account,
          {
            type: 'deviceCommand.statusChanged',
            data: {
              deviceId,
              commandId: merged.id,
              state: merged.status,
              ...(merged.cancelReason ? { reason: merged.cancelReason } : {}),
              ...(state.siteId ? { siteId: state.siteId } : {}),
              ...(merged.batchCommandId ? { batchCommandId: merged.batchCommandId } : {}),
              links: { command: webhookLinks.command(deviceId, merged.id) },
            },
          },
          { tx },
        );
      const kind = changeKindOf(before?.record, merged);
      // A cancellation by the device or the vendor has no actor.
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

  /** Last in its transaction. */
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

  /** A fleet job's batch is the job's to tell (fleet-outcomes.ts). */
  async batchSettled(
    tx: Queryable,
    account: Account,
    entry: LedgerRow,
    outcome: NonNullable<Awaited<ReturnType<LedgerStore['confirmBatchIn']>>>['outcome'],
  ): Promise<void> {
    const { batchCommandId } = entry;
    if ((!this.notifications && !this.webhooks) || !batchCommandId) return;
    const notFoundDevices = (outcome.unconfirmed ?? []).filter((d) => d.state === 'notFound');
    const notFound = notFoundDevices.length;
    const commands = outcome.commands ?? [];
    const records = await this.store.commandsOf(
      account,
      commands.map((c) => ({ deviceId: c.deviceId, commandId: c.id })),
      tx,
    );
    const overlappedRecords = [...records.values()].filter(
      (record) => record.status === 'cancelled' && record.cancelReason === 'timeWindowOverlap',
    );
    const overlapped = overlappedRecords.length;
    // Each device of a batch, a fleet job's too, fails or succeeds alone: one event each.
    const deviceFailed = (deviceId: string, reason: string, commandId?: string) =>
      this.webhooks?.record(
        account,
        {
          type: 'batch.deviceFailed',
          data: {
            batchCommandId,
            deviceId,
            ...(commandId ? { commandId } : {}),
            ...(entry.siteId ? { siteId: entry.siteId } : {}),
            state: 'failed',
            reason,
            links: {
              ...(commandId ? { command: webhookLinks.command(deviceId, commandId) } : {}),
              verdicts: webhookLinks.batchVerdicts(batchCommandId),
            },
          },
        },
        { tx },
      );
    for (const device of notFoundDevices)
      await deviceFailed(device.deviceId, 'its command was not found on the device');
    for (const record of overlappedRecords)
      await deviceFailed(
        record.deviceId,
        'cancelled: its window overlapped another command',
        record.id,
      );
    if (!this.notifications) return;
    if (entry.idempotencyKey?.startsWith('fleet-job:')) return;
    const failed = notFound + overlapped;
    if (failed === 0) return;
    await this.notifications.notify(
      {
        account,
        kind: 'batchDevicesFailed',
        batchCommandId,
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

  /** Everyone of the account is told for a command not sent through powerdeck. */
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

  /** The vendor does not say which control: the one no started command of the device ran, if one is left. */
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

export interface Learnt {
  record: StatusRecord;
  madeBy?: Actor | undefined;
  /** What it already came to is news to its sender. */
  sentByUs?: boolean;
}

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

export function accountOf(account: Account): Account {
  return { region: account.region, clientId: account.clientId };
}
