import type { StatusRecord } from '#domain/command.ts';
import { slotOf, slotsReadAfter } from '#domain/refresh-policy.ts';
import { accountKey, personOf, type Account } from '#domain/account.ts';
import type { LedgerRow } from '../ledger/ledger-rows.ts';
import { matchSubmittedCommands } from '../ledger/reconcile.ts';
import { actingFor } from '../session/acting-for.ts';
import type { SecretBox } from '../session/secret-box.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import type { ConfirmationRow } from './read-model-store.ts';
import {
  accountOf,
  type Learnt,
  type ReadModelChange,
  type ReadModelCore,
} from './read-model-core.ts';

export interface ReadOutcome {
  /** Upstream clock. */
  readAtMs: number;
  records: StatusRecord[];
  completeSlots: number[];
  /** The ranges that tell the device's present were all read: its `readAt` moves. */
  complete: boolean;
  /** Upstream clock. */
  notBeforeMs?: number | undefined;
  /**
   * `store.upstreamGeneration` when the read began: a read begun before the upstream was forgotten
   * (the sandbox's reset) is dropped whole.
   */
  upstreamGeneration?: number | undefined;
}

/** Keeps `seen_at` fresh. */
const REMEMBER_EVERY_MS = 10 * 60_000;

/**
 * What the refresher reads devices under and what its reads bring (decision 007, sections 3 to 5;
 * docs/architecture.md, Read model). A part of `ReadModel`.
 */
export class ReadModelRefresh {
  readonly #core: ReadModelCore;
  /** The secret itself, not a hash: a sha256 per request was about 4% of CPU (bench profile). */
  readonly #remembered = new Map<string, { secret: string; atMs: number }>();

  constructor(core: ReadModelCore) {
    this.#core = core;
  }

  /**
   * Keeps `caller`'s secret sealed for the refresher (docs/security.md). Never throws. Asked on
   * every product request, so it answers without a promise when nothing is to be written.
   */
  rememberCaller(caller: UpstreamCaller): Promise<void> | undefined {
    if (!this.#core.box) return undefined;
    const account = { region: caller.region, clientId: caller.clientId };
    const key = accountKey(account);
    const secret = caller.clientSecret;
    const nowMs = Date.now();
    const kept = this.#remembered.get(key);
    if (kept && kept.secret === secret && nowMs - kept.atMs < REMEMBER_EVERY_MS) return undefined;
    this.#remembered.set(key, { secret, atMs: nowMs });
    return this.#keepSecret(this.#core.box, account, key, secret);
  }

  async #keepSecret(box: SecretBox, account: Account, key: string, secret: string): Promise<void> {
    try {
      await this.#core.store.rememberAccount(
        account,
        box.seal(secret, sealingContext(account)),
        this.#core.now(),
      );
    } catch (error) {
      this.#remembered.delete(key);
      this.#core.log.warn(
        { err: error },
        'read model: the sign-in to read devices under was not kept',
      );
    }
  }

  /**
   * Forgets `account`'s sealed secret after the vendor refused it, and that it was kept: the
   * account's next product request keeps it again, rather than its reads waiting out
   * {@link REMEMBER_EVERY_MS} with no sign-in.
   */
  async forgetCaller(account: Account): Promise<void> {
    this.#remembered.delete(accountKey(accountOf(account)));
    await this.#core.store.forgetAccountSecret(account);
  }

  callerOf(account: Account, secretCiphertext: string): UpstreamCaller | undefined {
    if (!this.#core.box) return undefined;
    return actingFor({
      box: this.#core.box,
      key: sealingContext(account),
      sealedSecret: secretCiphertext,
      actor: accountOf(account),
      nowMs: this.#core.now(),
    });
  }

  /** Entries written before the read model existed, or whose recording failed. */
  async adoptConfirmingBatches(): Promise<number> {
    const looked = await this.#core.store.confirmedEntryIds();
    let adopted = 0;
    for (const row of await this.#core.ledger.confirmingBatches()) {
      if (looked.has(row.id)) continue;
      const rows = confirmationsOfEntry(row, this.#core.now());
      if (rows.length === 0) continue;
      await this.#core.addConfirmations(
        { region: row.region, clientId: row.clientId } as Account,
        rows,
      );
      adopted += 1;
    }
    return adopted;
  }

  /** A read of a device no longer bound, or begun before the upstream was forgotten, is dropped. */
  async applyRead(account: Account, deviceId: string, read: ReadOutcome): Promise<void> {
    account = accountOf(account);
    const nowMs = this.#core.now();
    const change: ReadModelChange = { account, records: [], ledgerEntries: [] };
    try {
      await this.#applyIn(account, deviceId, read, nowMs, change);
    } catch (error) {
      if (error instanceof ReadOfForgottenUpstream) return;
      throw error;
    }
    await this.#core.tell(change);
  }

  async #applyIn(
    account: Account,
    deviceId: string,
    read: ReadOutcome,
    nowMs: number,
    change: ReadModelChange,
  ): Promise<void> {
    await this.#core.store.transaction(async (tx) => {
      const state = await this.#core.store.lockDevice(tx, account, deviceId, nowMs);
      // Checked with the device's lock held, which `forgetAll` waits for.
      if (
        read.upstreamGeneration !== undefined &&
        read.upstreamGeneration !== this.#core.store.upstreamGeneration
      ) {
        // Thrown to roll back the state row `lockDevice` may have created.
        throw new ReadOfForgottenUpstream();
      }
      // Unbound while the read was under way: nothing of it is kept (docs/security.md, Unbinding).
      if (!state.bound) {
        await this.#core.store.updateState(tx, account, deviceId, { leaseUntil: null });
        return;
      }
      const learnt: Learnt[] = read.records.map((record) => ({ record }));
      const confirmations = await this.#core.store.confirmationsOf(tx, account, deviceId);
      const found = new Map<number, Map<string, string>>();
      const notFound = new Map<number, Set<string>>();
      const candidates = [];
      for (const confirmation of confirmations)
        candidates.push({
          submission: confirmation,
          sentAtMs: confirmation.sentAtMs,
          taken: await this.#core.ledger.knownCommandIds(
            account,
            deviceId,
            confirmation.ledgerEntryId,
            tx,
          ),
        });
      const matches = matchSubmittedCommands(read.records, candidates);
      for (const [at, confirmation] of confirmations.entries()) {
        const slot = slotOf(Date.parse(confirmation.startTime));
        const match = matches.get(at);
        if (match) {
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
          this.#core.log.debug(
            {
              deviceId,
              ledgerEntryId: confirmation.ledgerEntryId,
              readAfterSentMs: read.readAtMs - confirmation.sentAtMs,
            },
            "read model: a batch's command found",
          );
        } else if (
          read.completeSlots.includes(slot) &&
          read.readAtMs >= Date.parse(confirmation.endTime)
        ) {
          const devices = notFound.get(confirmation.ledgerEntryId) ?? new Set<string>();
          devices.add(deviceId);
          notFound.set(confirmation.ledgerEntryId, devices);
        } else continue;
        await this.#core.store.dropConfirmation(tx, confirmation.ledgerEntryId, deviceId);
      }
      const learning = await this.#core.learn(tx, account, deviceId, state, learnt, nowMs);
      change.records = learning.records;
      for (const entryId of new Set([...found.keys(), ...notFound.keys()])) {
        const confirmed = await this.#core.ledger.confirmBatchIn(
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
          await this.#core.batchSettled(tx, account, confirmed.row, confirmed.outcome);
      }
      // So the next read takes first the open range read longest ago.
      const slotsRead = slotsReadAfter(state.slotsRead, read.completeSlots);
      const slotsRequested = state.slotsRequested.filter(
        (slot) => !read.completeSlots.includes(slot),
      );
      const readAtMs = read.complete ? read.readAtMs : state.readAt?.getTime();
      await this.#core.plan(tx, account, deviceId, {
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
      await this.#core.publish(tx, account, deviceId, learning, change.ledgerEntries);
    });
  }

  /** `atMs` upstream clock; `unbound`: read no more. */
  async releaseRead(
    account: Account,
    deviceId: string,
    outcome: { atMs?: number; failed?: boolean; unbound?: boolean },
  ): Promise<void> {
    account = accountOf(account);
    const nowMs = this.#core.now();
    await this.#core.store.transaction(async (tx) => {
      const state = await this.#core.store.lockDevice(tx, account, deviceId, nowMs);
      await this.#core.store.updateState(tx, account, deviceId, {
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
}

class ReadOfForgottenUpstream extends Error {}

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

function sealingContext(account: Account): string {
  return `read-model:${account.region}:${account.clientId}`;
}

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
