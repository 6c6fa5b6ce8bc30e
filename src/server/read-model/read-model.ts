import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { BatchCancelResponse } from '../../domain/batch.ts';
import type { CommandCancellation, CommandStatus, StatusRecord } from '../../domain/command.ts';
import { applyCancellation, isFinalStatus } from '../../domain/command.ts';
import type { SiteList } from '../../domain/device.ts';
import { historyRangeSlots } from '../../domain/history.ts';
import { NOTIFIED_CANCELLATION_REASONS } from '../../domain/notifications.ts';
import { POWER_CONTROL_PROPERTIES } from '../../domain/power-control.ts';
import {
  changeKindOf,
  mergeStatusRecord,
  type DeviceCommandChange,
  type DeviceCommandChanges,
  type DeviceCommandsView,
  type DeviceReadState,
  type DeviceVersion,
} from '../../domain/read-model.ts';
import {
  DEFAULT_REFRESH_SETTINGS,
  nextReadOf,
  slotOf,
  slotsReadAfter,
  type RefreshSettings,
} from '../../domain/refresh-policy.ts';
import type { AccountEvents } from '../events/account-events.ts';
import type { Queryable } from '../events/event-store.ts';
import {
  accountKey,
  personKey,
  personOf,
  type Account,
  type Actor,
  type Person,
} from '../../domain/account.ts';
import {
  madeByName,
  type BoundSite,
  type DeviceCommandsRecorder,
  type RecordOptions,
  type SentBatch,
} from '../ledger/device-commands-recorder.ts';
import type { LedgerRow, LedgerStore } from '../ledger/ledger-store.ts';
import { matchSubmittedCommand } from '../ledger/reconcile.ts';
import type { Notifications } from '../notifications/notifications.ts';
import { actingFor } from '../session/acting-for.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import {
  ReadModelStore,
  type ConfirmationRow,
  type DeviceStateRow,
  type KnownCommand,
} from './read-model-store.ts';
import { deviceReadStateOf, type KeptState } from './device-read-cache.ts';

/** What changed in the read model, told to listeners after it committed (the fleet's outcomes). */
export interface ReadModelChange {
  account: Account;
  /** Records that changed in any way (a new command, a cancellation, the lifecycle going on). */
  records: StatusRecord[];
  /** Batch ledger entries whose device commands were found (or given up) by this change. */
  ledgerEntries: LedgerRow[];
}

/** What one read of a device's history brought (the refresher's, `device-reads.ts`). */
export interface ReadOutcome {
  /** When the read was sent, upstream clock. */
  readAtMs: number;
  records: StatusRecord[];
  /** Slot starts of the 30-day ranges read to their last page. */
  completeSlots: number[];
  /**
   * The ranges that tell the device's present (domain `liveSlotsOf`) were all read: its `readAt`
   * moves. Asked-for older history may still wait for the budget.
   */
  complete: boolean;
  /** The rest waits for the budget: read again no earlier than this (upstream clock). */
  notBeforeMs?: number | undefined;
}

/** How long an account's sealed secret is written again at most, ms (its `seen_at` kept fresh). */
const REMEMBER_EVERY_MS = 10 * 60_000;

/**
 * The read model of device commands (docs/decisions/007-device-call-budget.md, sections 3 to 5;
 * docs/architecture.md, Read model), in the BFF's database: the ledger records into it what the
 * vendor accepted (the {@link DeviceCommandsRecorder} seam), the refresher's reads of device
 * histories bring what the vendor did since, and every browser read is answered from it. Each
 * change is one transaction per device, holding the device's state row, that ends by publishing
 * `deviceCommandsChanged` with the device's version, so every open browser of the account
 * updates; notifications of what the reads learnt (a device's cancellation, a batch's failed
 * devices) go in the same transaction.
 */
export class ReadModel implements DeviceCommandsRecorder {
  readonly store: ReadModelStore;
  readonly #ledger: LedgerStore;
  readonly #events: AccountEvents | undefined;
  readonly #notifications: Notifications | undefined;
  readonly #now: () => number;
  readonly #settings: RefreshSettings;
  readonly #log: FastifyBaseLogger;
  readonly #box: SecretBox | undefined;
  readonly #listeners: ((change: ReadModelChange) => Promise<void>)[] = [];
  /**
   * The secret each account's sign-in was last kept with, and when. The secret itself, not a hash
   * of it: this is asked on every product request, and a sha256 per request was about 4% of the
   * BFF's CPU on status polls (bench CPU profile); the session cache holds the same secret in
   * memory already.
   */
  readonly #remembered = new Map<string, { secret: string; atMs: number }>();
  readonly #syncedSites = new Map<string, string>();
  /** Woken when a device became due sooner (the refresher's `wake`). */
  onDue: (() => void) | undefined;

  /**
   * @param options.now the upstream's clock, epoch ms: reads are planned on it.
   * @param options.box seals the secrets the refresher reads under; without it nothing is read.
   */
  constructor(options: {
    store: ReadModelStore;
    ledger: LedgerStore;
    events?: AccountEvents | undefined;
    notifications?: Notifications | undefined;
    now: () => number;
    settings?: RefreshSettings | undefined;
    log: FastifyBaseLogger;
    box?: SecretBox | undefined;
  }) {
    this.store = options.store;
    this.#ledger = options.ledger;
    this.#events = options.events;
    this.#notifications = options.notifications;
    this.#now = options.now;
    this.#settings = options.settings ?? DEFAULT_REFRESH_SETTINGS;
    this.#log = options.log;
    this.#box = options.box;
    // Changes other instances made drop the devices kept in memory (this instance's own drop them
    // as their transactions end).
    this.#events?.onDevicesChanged((changed, deviceIds) => {
      if (!changed) this.store.cache.clear();
      else if (!deviceIds) this.store.cache.dropAccount(changed);
      else
        this.store.cache.drop(
          changed,
          deviceIds.map((deviceId) => ({ kind: 'device', deviceId })),
        );
    });
  }

  get settings(): RefreshSettings {
    return this.#settings;
  }

  /** Calls `listener` after each change commits; a failing listener is logged, never thrown. */
  onChange(listener: (change: ReadModelChange) => Promise<void>): void {
    this.#listeners.push(listener);
  }

  // --- The seam: what the vendor accepted -------------------------------------------------

  async recordSubmitted(
    account: Account,
    deviceId: string,
    record: StatusRecord,
    options: RecordOptions = {},
  ): Promise<DeviceVersion> {
    account = accountOf(account);
    return this.#learnNow(account, deviceId, [{ record, madeBy: options.madeBy }]);
  }

  async recordCancelled(
    account: Account,
    cancellation: CommandCancellation,
    options: RecordOptions = {},
  ): Promise<DeviceVersion> {
    account = accountOf(account);
    const { deviceId, commandId } = cancellation;
    const known = await this.store.commandsByIds(this.store.db, account, deviceId, [commandId]);
    const before = known.get(commandId);
    // A command the read model did not know: the device's next read brings it, cancelled.
    if (!before) return this.#learnNow(account, deviceId, [], { readSoon: true });
    return this.#learnNow(account, deviceId, [
      { record: applyCancellation(before.record, cancellation), madeBy: options.madeBy },
    ]);
  }

  async recordBatchSent(
    account: Account,
    batch: SentBatch,
    options: RecordOptions = {},
  ): Promise<void> {
    account = accountOf(account);
    const sentAtMs = Date.parse(batch.answeredAt);
    const rows: ConfirmationRow[] = batch.deviceIds.map((deviceId) => ({
      ledgerEntryId: batch.ledgerEntryId,
      deviceId,
      batchCommandId: batch.batchCommandId ?? null,
      powerControl: batch.command.powerControl,
      startTime: batch.command.startTime,
      endTime: batch.command.endTime,
      sentAtMs: Number.isNaN(sentAtMs) ? this.#now() : sentAtMs,
      madeBy: options.madeBy?.person,
      madeByName: madeByName(options.madeBy),
    }));
    await this.#addConfirmations(account, rows);
  }

  async recordBatchCancelled(
    account: Account,
    answer: BatchCancelResponse,
    options: RecordOptions = {},
  ): Promise<void> {
    account = accountOf(account);
    const cancelledAt = new Date(this.#now()).toISOString();
    for (const result of answer.results)
      if (result.success && result.commandId)
        await this.recordCancelled(
          account,
          {
            deviceId: result.deviceId,
            commandId: result.commandId,
            status: 'cancelled',
            cancelledAt,
            cancelReason: 'manuallyCancel',
          },
          options,
        );
  }

  async recordSiteBound(account: Account, site: BoundSite): Promise<void> {
    account = accountOf(account);
    await this.#markBound(account, [site], 'change');
  }

  /**
   * The site's devices are read no more and nothing of them is answered from here on
   * (docs/security.md, Unbinding): this instance's status polls at once, every other instance's
   * once it hears of the `siteBindingsChanged` published here (their caches drop the account).
   * Everyone else on the account is notified, with the waiting and executing commands the
   * unbind leaves on the vendor.
   */
  async recordSiteUnbound(
    account: Account,
    siteId: string,
    options: RecordOptions = {},
  ): Promise<void> {
    account = accountOf(account);
    const notifications = this.#notifications;
    const unboundBy = options.madeBy;
    await this.store.transaction(async (tx) => {
      // A site list read before this unbind lands after it in vain (see readSites).
      await this.store.lockBindings(tx, account, true);
      // What the unbind leaves on the vendor, counted before its devices are read no more.
      const waitingCommands = await this.store.openCommandsOfSite(tx, account, siteId);
      await this.store.markSiteUnbound(tx, account, siteId, this.#now());
      await this.#bindingsChanged(tx, account, [siteId]);
      if (notifications && unboundBy)
        await notifications.notify(
          { account, kind: 'siteUnbound', siteId, waitingCommands, unboundBy },
          { tx },
        );
    });
    this.#syncedSites.delete(accountKey(account));
  }

  async versionOf(account: Account, deviceId: string): Promise<DeviceVersion> {
    account = accountOf(account);
    return (await this.store.stateOf(account, deviceId))?.version ?? 0;
  }

  async changesSince(
    account: Account,
    deviceId: string,
    sinceVersion: DeviceVersion,
    options: { exceptBy?: Person | undefined } = {},
  ): Promise<DeviceCommandChanges> {
    account = accountOf(account);
    const version = await this.versionOf(account, deviceId);
    const exceptKey = options.exceptBy ? personKey(options.exceptBy) : undefined;
    const changes = await this.store.changesAfter(account, deviceId, sinceVersion, exceptKey);
    const oldest = await this.store.oldestKeptVersion(account, deviceId);
    const complete =
      version <= sinceVersion || (oldest !== undefined && oldest <= sinceVersion + 1);
    return { deviceId, sinceVersion, version, changes, complete };
  }

  // --- What browsers read ------------------------------------------------------------------

  /**
   * A device's commands whose window meets `range`, as the read model holds them, with where it
   * stands. Ranges of it never read (its backfill, or older history the page asks for) are read
   * soon: the answer says so (`historyPending`), and the read pushes what it finds.
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
    let state = await this.store.stateOf(account, deviceId);
    const unread = slots.filter((slot) => !state?.slotsRead.includes(slot));
    const unasked = unread.filter((slot) => !state?.slotsRequested.includes(slot));
    if (unasked.length > 0) state = await this.#requestSlots(account, deviceId, unasked);
    const commands = await this.store.commandsMeeting(account, deviceId, range, status);
    return {
      deviceId,
      commands,
      ...deviceReadStateOf(state),
      ...(unread.length > 0 ? { historyPending: true } : {}),
    };
  }

  /**
   * One command's record, with where its device stands; undefined when not known. It does not
   * check the device's binding: callers answer a browser only after {@link isBound}.
   */
  async status(
    account: Account,
    deviceId: string,
    commandId: string,
  ): Promise<{ record: StatusRecord; device: DeviceReadState } | undefined> {
    account = accountOf(account);
    // Polled by every open tab: from memory while nothing of the device changed (see the cache).
    const { cache } = this.store;
    const epoch = cache.epoch;
    const kept = cache.status(account, deviceId, commandId);
    let command = kept.command;
    if (!command) {
      command = (await this.store.commandsByIds(this.store.db, account, deviceId, [commandId])).get(
        commandId,
      );
      if (!command) return undefined;
      cache.keepCommand(epoch, account, deviceId, command);
    }
    const device = (kept.state ?? (await this.#keptState(account, deviceId))).view;
    return { record: command.record, device };
  }

  /**
   * Whether the device is on a site bound to the account as the read model knows it (its bind,
   * the site list, or the vendor refusing a read of it): false too when it never heard of the
   * device. From memory while nothing of the device changed, so every status poll can ask it
   * (docs/security.md, Unbinding).
   */
  async isBound(account: Account, deviceId: string): Promise<boolean> {
    account = accountOf(account);
    const kept =
      this.store.cache.state(account, deviceId) ?? (await this.#keptState(account, deviceId));
    return kept.state?.bound ?? false;
  }

  /** Where a device stands; undefined when the read model has never heard of it. */
  async stateOf(account: Account, deviceId: string): Promise<DeviceStateRow | undefined> {
    account = accountOf(account);
    return this.store.stateOf(account, deviceId);
  }

  /** Which of `deviceIds` are of a site the account unbound: the read model reads them no more. */
  unboundOf(account: Account, deviceIds: readonly string[]): Promise<Set<string>> {
    account = accountOf(account);
    return this.store.unboundOf(account, deviceIds);
  }

  /** Records of the account by device and command ID (key `deviceId commandId`). */
  commands(
    account: Account,
    refs: readonly { deviceId: string; commandId: string }[],
  ): Promise<Map<string, StatusRecord>> {
    account = accountOf(account);
    return this.store.commandsOf(account, refs);
  }

  /**
   * Reads the account's site list with `read` (the vendor's `GET /sites`) and applies it: its
   * devices are bound (new ones read once, soon: their backfill), and the account's devices it
   * no longer lists are read no more. Written only when the list differs from the last one this
   * instance applied, and only when no bind or unbind was recorded for the account, on any
   * instance, since the read started: such an answer predates the change, and applying it would
   * take a site just bound out of reach or bring a site just unbound back (docs/architecture.md,
   * Read model). That list is left unapplied; the next read brings the bindings as they are.
   *
   * @returns the list as `read` answered it, applied or not.
   * @throws whatever `read` throws (nothing is applied then).
   */
  async readSites(account: Account, read: () => Promise<SiteList>): Promise<SiteList> {
    account = accountOf(account);
    const generation = await this.store.bindingsGeneration(account);
    const list = await read();
    const sites = list.sites.map((site) => ({
      siteId: site.siteId,
      deviceIds: site.devices.map((device) => device.deviceId),
    }));
    const fingerprint = createHash('sha256').update(JSON.stringify(sites)).digest('base64');
    const key = accountKey(account);
    if (this.#syncedSites.get(key) === fingerprint) return list;
    if (!(await this.#markBound(account, sites, { listReadAt: generation }))) return list;
    if (this.#syncedSites.size > 10_000) this.#syncedSites.clear();
    this.#syncedSites.set(key, fingerprint);
    return list;
  }

  /** A device of a bound site the read model did not know yet (its site just checked). */
  async adoptDevice(account: Account, deviceId: string, siteId: string): Promise<void> {
    account = accountOf(account);
    await this.#markBound(account, [{ siteId, deviceIds: [deviceId] }], 'adopt');
  }

  /** The controls each device of the account turned out not to support. */
  unsupportedControls(account: Account): Promise<Map<string, Set<string>>> {
    account = accountOf(account);
    return this.store.unsupportedOf(account);
  }

  /**
   * Keeps `caller`'s client secret, sealed, for the refresher to read the account's devices
   * under (docs/security.md): written again when it changed or a while has passed, so `seen_at`
   * says the account is in use. Never throws: reads go on under the last one kept. Asked on every
   * product request, so when nothing is to be written it answers at once, without a promise.
   */
  rememberCaller(caller: UpstreamCaller): Promise<void> | undefined {
    if (!this.#box) return undefined;
    const account = { region: caller.region, clientId: caller.clientId };
    const key = accountKey(account);
    const secret = caller.clientSecret;
    const nowMs = Date.now();
    const kept = this.#remembered.get(key);
    if (kept && kept.secret === secret && nowMs - kept.atMs < REMEMBER_EVERY_MS) return undefined;
    this.#remembered.set(key, { secret, atMs: nowMs });
    return this.#keepSecret(this.#box, account, key, secret);
  }

  async #keepSecret(box: SecretBox, account: Account, key: string, secret: string): Promise<void> {
    try {
      await this.store.rememberAccount(
        account,
        box.seal(secret, sealingContext(account)),
        this.#now(),
      );
    } catch (error) {
      this.#remembered.delete(key);
      this.#log.warn({ err: error }, 'read model: the sign-in to read devices under was not kept');
    }
  }

  /** The sign-in the refresher reads an account's devices under, from its sealed secret. */
  callerOf(account: Account, secretCiphertext: string): UpstreamCaller | undefined {
    if (!this.#box) return undefined;
    return actingFor({
      box: this.#box,
      key: sealingContext(account),
      sealedSecret: secretCiphertext,
      actor: accountOf(account),
      nowMs: this.#now(),
    });
  }

  /**
   * Adopts the batch entries still confirming that the read model does not look for yet
   * (written before it existed, or whose recording failed): their devices are read soon.
   */
  async adoptConfirmingBatches(): Promise<number> {
    const looked = await this.store.confirmedEntryIds();
    let adopted = 0;
    for (const row of await this.#ledger.confirmingBatches()) {
      if (looked.has(row.id)) continue;
      const rows = confirmationsOfEntry(row, this.#now());
      if (rows.length === 0) continue;
      await this.#addConfirmations({ region: row.region, clientId: row.clientId } as Account, rows);
      adopted += 1;
    }
    return adopted;
  }

  // --- What the refresher's reads bring ------------------------------------------------------

  /**
   * Applies one read of a device's history: its records merged in (versions bumped for new
   * commands and cancellations), the batches looked for on it confirmed or given up, what it
   * learnt notified, and its next read planned. A read of a device no longer bound is dropped.
   */
  async applyRead(account: Account, deviceId: string, read: ReadOutcome): Promise<void> {
    account = accountOf(account);
    const nowMs = this.#now();
    const change: ReadModelChange = { account, records: [], ledgerEntries: [] };
    await this.store.transaction(async (tx) => {
      const state = await this.store.lockDevice(tx, account, deviceId, nowMs);
      // Its site was unbound while the read was under way: the client may no longer know what
      // it brought (docs/security.md, Unbinding), so nothing of it is kept, pushed or notified.
      if (!state.bound) {
        await this.store.updateState(tx, account, deviceId, { leaseUntil: null });
        return;
      }
      const learnt: Learnt[] = read.records.map((record) => ({ record }));
      const confirmations = await this.store.confirmationsOf(tx, account, deviceId);
      const found = new Map<number, Map<string, string>>();
      const notFound = new Map<number, Set<string>>();
      const matched = new Set<string>();
      for (const confirmation of confirmations) {
        const slot = slotOf(Date.parse(confirmation.startTime));
        const taken = await this.#ledger.knownCommandIds(
          account,
          deviceId,
          confirmation.ledgerEntryId,
          tx,
        );
        for (const id of matched) taken.add(id);
        const match = matchSubmittedCommand(
          read.records,
          confirmation,
          confirmation.sentAtMs,
          taken,
        );
        if (match) {
          matched.add(match.id);
          const index = learnt.findIndex((item) => item.record.id === match.id);
          const record: StatusRecord = {
            ...match,
            ...(confirmation.batchCommandId ? { batchCommandId: confirmation.batchCommandId } : {}),
          };
          learnt[index] = {
            record,
            madeBy: confirmation.madeBy
              ? { person: confirmation.madeBy, name: confirmation.madeByName }
              : undefined,
            sentByUs: true,
          };
          addTo(found, confirmation.ledgerEntryId, deviceId, match.id);
        } else if (
          read.completeSlots.includes(slot) &&
          read.readAtMs >= Date.parse(confirmation.endTime)
        ) {
          const devices = notFound.get(confirmation.ledgerEntryId) ?? new Set<string>();
          devices.add(deviceId);
          notFound.set(confirmation.ledgerEntryId, devices);
        } else continue;
        await this.store.dropConfirmation(tx, confirmation.ledgerEntryId, deviceId);
      }
      const learning = await this.#learn(tx, account, deviceId, state, learnt, nowMs);
      change.records = learning.records;
      for (const entryId of new Set([...found.keys(), ...notFound.keys()])) {
        const confirmed = await this.#ledger.confirmBatchIn(
          tx,
          entryId,
          found.get(entryId) ?? new Map(),
          notFound.get(entryId) ?? new Set(),
        );
        if (!confirmed) continue;
        change.ledgerEntries.push(confirmed.row);
        if (
          confirmed.before.confirmation === 'confirming' &&
          confirmed.outcome.confirmation !== 'confirming'
        )
          await this.#batchSettled(tx, account, confirmed.row, confirmed.outcome);
      }
      // Kept in the order read, so the next read takes first the open range read longest ago.
      const slotsRead = slotsReadAfter(state.slotsRead, read.completeSlots);
      const slotsRequested = state.slotsRequested.filter(
        (slot) => !read.completeSlots.includes(slot),
      );
      const readAtMs = read.complete ? read.readAtMs : state.readAt?.getTime();
      await this.#plan(tx, account, deviceId, {
        nowMs,
        readAtMs,
        slotsRequested,
        notBeforeMs: read.notBeforeMs,
        set: {
          ...(read.complete ? { readAt: new Date(read.readAtMs) } : {}),
          slotsRead,
          slotsRequested,
          failures: 0,
          leaseUntil: null,
        },
      });
      await this.#publish(tx, account, deviceId, learning, change.ledgerEntries);
    });
    await this.#tell(change);
  }

  /**
   * Ends a read that could not be made or failed: the device's lease is released and its next
   * read set (`atMs`, upstream clock), or it is read no more (`unbound`).
   */
  async releaseRead(
    account: Account,
    deviceId: string,
    outcome: { atMs?: number; failed?: boolean; unbound?: boolean },
  ): Promise<void> {
    account = accountOf(account);
    const nowMs = this.#now();
    await this.store.transaction(async (tx) => {
      const state = await this.store.lockDevice(tx, account, deviceId, nowMs);
      await this.store.updateState(tx, account, deviceId, {
        leaseUntil: null,
        updatedAt: new Date(nowMs),
        ...(outcome.unbound ? { bound: false, nextReadAt: null } : {}),
        ...(outcome.atMs !== undefined && !outcome.unbound
          ? { nextReadAt: new Date(Math.max(outcome.atMs, nowMs)) }
          : {}),
        ...(outcome.failed ? { failures: state.failures + 1 } : {}),
      });
    });
  }

  // --- Inside ---------------------------------------------------------------------------------

  /** Learns records of one device in a transaction of its own, publishes, tells listeners. */
  async #learnNow(
    account: Account,
    deviceId: string,
    learnt: Learnt[],
    options: { readSoon?: boolean } = {},
  ): Promise<DeviceVersion> {
    const nowMs = this.#now();
    const change: ReadModelChange = { account, records: [], ledgerEntries: [] };
    const version = await this.store.transaction(async (tx) => {
      const state = await this.store.lockDevice(tx, account, deviceId, nowMs);
      const learning = await this.#learn(tx, account, deviceId, state, learnt, nowMs);
      change.records = learning.records;
      await this.#plan(tx, account, deviceId, {
        nowMs,
        readAtMs: state.readAt?.getTime(),
        slotsRequested: state.slotsRequested,
        dueNow: options.readSoon,
        set: {},
      });
      await this.#publish(tx, account, deviceId, learning, []);
      return learning.version;
    });
    await this.#tell(change);
    return version;
  }

  /**
   * Merges `learnt` into the device's commands (its lock held): each record as
   * `mergeStatusRecord` leaves it, a change and one more version per new command or
   * cancellation, a notification for a cancellation nobody chose of a command known open, and
   * the control a `notSupported` command showed the device lacks.
   */
  async #learn(
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
  async #plan(
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
      this.#settings,
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
    if (atMs !== undefined && atMs <= input.nowMs + this.#settings.allowanceMs) this.onDue?.();
  }

  /** Publishes what changed on the device, last in its transaction. */
  async #publish(
    tx: Queryable,
    account: Account,
    deviceId: string,
    learning: Learning,
    ledgerEntries: readonly LedgerRow[],
  ): Promise<void> {
    if (learning.version !== learning.versionBefore)
      await this.store.updateState(tx, account, deviceId, { version: learning.version });
    if (!this.#events) return;
    for (const entry of ledgerEntries)
      await this.#events.publish(
        account,
        { type: 'ledgerEntryChanged', data: { id: String(entry.id), kind: entry.kind } },
        { tx },
      );
    if (learning.capabilitiesChanged)
      await this.#events.publish(
        account,
        { type: 'deviceCapabilitiesChanged', data: { deviceIds: [deviceId] } },
        { tx },
      );
    if (learning.records.length > 0)
      await this.#events.publish(
        account,
        {
          type: 'deviceCommandsChanged',
          data: { deviceIds: [deviceId], versions: { [deviceId]: learning.version } },
        },
        { tx },
      );
  }

  async #tell(change: ReadModelChange): Promise<void> {
    if (change.records.length === 0 && change.ledgerEntries.length === 0) return;
    for (const listener of this.#listeners)
      await listener(change).catch((error: unknown) =>
        this.#log.warn({ err: error }, 'read model: a listener of its changes failed'),
      );
  }

  async #requestSlots(
    account: Account,
    deviceId: string,
    slots: readonly number[],
  ): Promise<DeviceStateRow | undefined> {
    const nowMs = this.#now();
    await this.store.transaction(async (tx) => {
      const state = await this.store.lockDevice(tx, account, deviceId, nowMs);
      const slotsRequested = [...new Set([...state.slotsRequested, ...slots])].sort(
        (a, b) => a - b,
      );
      await this.#plan(tx, account, deviceId, {
        nowMs,
        readAtMs: state.readAt?.getTime(),
        slotsRequested,
        set: { slotsRequested },
      });
    });
    return this.store.stateOf(account, deviceId);
  }

  /** The device's state read from the database and kept in the cache. */
  async #keptState(account: Account, deviceId: string): Promise<KeptState> {
    const { cache } = this.store;
    const epoch = cache.epoch;
    const read = await this.store.stateOf(account, deviceId);
    cache.keepState(epoch, account, deviceId, read);
    const state = read && { bound: read.bound, version: read.version, readAt: read.readAt };
    return { state, view: deviceReadStateOf(state) };
  }

  /**
   * Tells every instance and browser of the account that sites were bound or unbound, in `tx`:
   * other instances drop the account's devices from their caches (their bindings changed), open
   * pages read the site list again.
   */
  async #bindingsChanged(tx: Queryable, account: Account, siteIds: string[]): Promise<void> {
    await this.#events?.publish(
      account,
      { type: 'siteBindingsChanged', data: siteIds.length > 0 ? { siteIds } : {} },
      { tx },
    );
  }

  /**
   * Marks `sites`' devices bound, as `how` says: a bind recorded (`change`: the account's
   * bindings generation moves on), a device adopted from a site list just checked (`adopt`), or a
   * whole site list read under generation `listReadAt`, whose unlisted devices are unbound. Such
   * a list is not applied when the generation moved on since (returns false).
   */
  async #markBound(
    account: Account,
    sites: readonly { siteId: string; deviceIds: readonly string[] }[],
    how: 'change' | 'adopt' | { listReadAt: number },
  ): Promise<boolean> {
    const nowMs = this.#now();
    const allBound = typeof how === 'object';
    return this.store.transaction(async (tx) => {
      if (how !== 'adopt') {
        const generation = await this.store.lockBindings(tx, account, how === 'change');
        if (allBound && generation !== how.listReadAt) {
          this.#log.debug(
            { region: account.region, clientId: account.clientId },
            'read model: a site list read before a bind or unbind is not applied',
          );
          return false;
        }
      }
      const { added, changed } = await this.store.markBound(tx, account, sites, nowMs, allBound);
      for (const deviceId of added) {
        const state = await this.store.lockDevice(tx, account, deviceId, nowMs);
        await this.#plan(tx, account, deviceId, {
          nowMs,
          readAtMs: state.readAt?.getTime(),
          slotsRequested: state.slotsRequested,
          set: {},
        });
      }
      // A whole site list names no site: any may have been bound or unbound.
      if (changed)
        await this.#bindingsChanged(tx, account, allBound ? [] : sites.map((site) => site.siteId));
      return true;
    });
  }

  async #addConfirmations(account: Account, rows: ConfirmationRow[]): Promise<void> {
    if (rows.length === 0) return;
    const nowMs = this.#now();
    await this.store.transaction(async (tx) => {
      const states = await this.store.lockDevices(
        tx,
        account,
        rows.map((row) => row.deviceId),
        nowMs,
      );
      await this.store.addConfirmations(tx, account, rows);
      for (const [deviceId, state] of states)
        await this.#plan(tx, account, deviceId, {
          nowMs,
          readAtMs: state.readAt?.getTime(),
          slotsRequested: state.slotsRequested,
          set: {},
        });
    });
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
    if (!this.#notifications || !reason) return;
    if (!(NOTIFIED_CANCELLATION_REASONS as readonly string[]).includes(reason)) return;
    const entry = await this.#ledger.findByCommand(account, record.deviceId, record.id, tx);
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
    await this.#notifications.notify(
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
   * A batch whose device commands are all found or given up: its sender is told of its failed
   * devices (not found after the window, or cancelled at once for overlap). A fleet job's batch
   * is the job's to tell (fleet-outcomes.ts).
   */
  async #batchSettled(
    tx: Queryable,
    account: Account,
    entry: LedgerRow,
    outcome: NonNullable<Awaited<ReturnType<LedgerStore['confirmBatchIn']>>>['outcome'],
  ): Promise<void> {
    if (!this.#notifications || !entry.batchCommandId) return;
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
    await this.#notifications.notify(
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
interface Learnt {
  record: StatusRecord;
  madeBy?: Actor | undefined;
  /** Found for a batch powerdeck sent: what it already came to is news to its sender. */
  sentByUs?: boolean;
}

/** What {@link ReadModel} `#learn` did to a device. */
interface Learning {
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

function addTo(
  map: Map<number, Map<string, string>>,
  entryId: number,
  deviceId: string,
  commandId: string,
): void {
  const devices = map.get(entryId) ?? new Map<string, string>();
  devices.set(deviceId, commandId);
  map.set(entryId, devices);
}

/** Only the account of `account` (a session or caller passes as one, with its secret). */
function accountOf(account: Account): Account {
  return { region: account.region, clientId: account.clientId };
}

/** Associated data the sealed secret of an account is bound to. */
function sealingContext(account: Account): string {
  return `read-model:${account.region}:${account.clientId}`;
}

/** The devices of a confirming batch entry still looked for, as confirmation rows. */
function confirmationsOfEntry(row: LedgerRow, nowMs: number): ConfirmationRow[] {
  const request = row.request as {
    devices?: unknown;
    command?: { powerControl?: unknown; startTime?: unknown; endTime?: unknown };
  } | null;
  const outcome = row.outcome as { unconfirmed?: { deviceId: string; state: string }[] } | null;
  const command = request?.command;
  if (
    !command ||
    typeof command.startTime !== 'string' ||
    typeof command.endTime !== 'string' ||
    typeof command.powerControl !== 'object'
  )
    return [];
  const answered = (row.response as { body?: { timestamp?: unknown } } | null)?.body?.timestamp;
  const sentAtMs = typeof answered === 'string' ? Date.parse(answered) : row.createdAt.getTime();
  const madeBy = personOf({
    ...(row.operatorIssuer && row.operatorSubject
      ? { operator: { issuer: row.operatorIssuer, subject: row.operatorSubject } }
      : {}),
    operatorName: row.operatorName,
  });
  return (outcome?.unconfirmed ?? [])
    .filter((device) => device.state === 'confirming')
    .map((device) => ({
      ledgerEntryId: row.id,
      deviceId: device.deviceId,
      batchCommandId: row.batchCommandId,
      powerControl: command.powerControl as ConfirmationRow['powerControl'],
      startTime: command.startTime as string,
      endTime: command.endTime as string,
      sentAtMs: Number.isNaN(sentAtMs) ? nowMs : sentAtMs,
      madeBy,
      ...(row.operatorName ? { madeByName: row.operatorName } : {}),
    }));
}
