import { LRUCache } from 'lru-cache';
import {
  applyCancellation,
  type CommandCancellation,
  type StatusRecord,
} from '../../domain/command.ts';
import { accountKey } from '../../domain/account.ts';
import type { CommandRef } from '../upstream/upstream-api.ts';
import type { UpstreamCaller } from '../upstream/upstream-caller.ts';
import { Coalescer } from './coalescer.ts';
import { FINAL_STATUS_CAPACITY, type FinalStatuses } from './final-statuses.ts';

/**
 * Command status reads for polling browsers (docs/architecture.md, Budgets: status polling): a
 * final record (completed or cancelled) is served from memory for good; others go through the
 * coalescer (concurrent identical reads shared, a record reused for `STATUS_REUSE_MS`).
 * Everything is keyed by region, client, device and command, so no client sees another's data.
 */
export class StatusReads {
  readonly #coalescer: Coalescer<StatusRecord>;
  readonly #finals: FinalStatuses;
  /** The last record read of each command, final or not, for the overview (`lastKnown`). */
  readonly #lastSeen = new LRUCache<string, StatusRecord>({ max: FINAL_STATUS_CAPACITY });

  /**
   * @param reuseMs how long a record is reused (`STATUS_REUSE_MS`), ms.
   * @param finals where final records are kept; each upstream answer is offered to it once.
   */
  constructor(now: () => number, reuseMs: number, finals: FinalStatuses) {
    this.#finals = finals;
    this.#coalescer = new Coalescer(now, reuseMs, (key, record) => {
      this.#lastSeen.set(key, record);
      finals.rememberIfFinal(key, record);
    });
  }

  /** The status record of `ref`, from memory or one shared upstream read (`read`). */
  fetch(
    caller: UpstreamCaller,
    ref: CommandRef,
    read: () => Promise<StatusRecord>,
  ): Promise<StatusRecord> {
    const key = statusKey(caller, ref);
    const final = this.#finals.get(key);
    if (final) return Promise.resolve(final);
    return this.#coalescer.fetch(key, read);
  }

  /**
   * The last status record of `ref` this BFF read for the caller's client (a poll of any browser,
   * or a cancel's answer written in), without any upstream call; absent when none was read since
   * the BFF started or it was forgotten. The overview reads it (docs/architecture.md, Overview):
   * a record not final may be out of date, which the overview's rules allow for.
   */
  lastKnown(caller: UpstreamCaller, ref: CommandRef): StatusRecord | undefined {
    const key = statusKey(caller, ref);
    return this.#finals.get(key) ?? this.#lastSeen.get(key);
  }

  /**
   * After a cancel succeeded: the reused record of that command is stale, so it is dropped; when
   * one was kept, it is kept as final with the cancellation written in (later polls get it).
   */
  async afterCancel(caller: UpstreamCaller, cancellation: CommandCancellation): Promise<void> {
    const key = statusKey(caller, {
      deviceId: cancellation.deviceId,
      commandId: cancellation.commandId,
    });
    const kept = await this.#coalescer.peek(key);
    this.#coalescer.forget(key);
    const seen = this.#lastSeen.get(key);
    if (seen) this.#lastSeen.set(key, applyCancellation(seen, cancellation));
    if (kept) this.#finals.rememberIfFinal(key, applyCancellation(kept, cancellation));
  }

  /** Drops every reused record of this command (a batch cancel changed it). */
  forget(caller: UpstreamCaller, ref: CommandRef): void {
    const key = statusKey(caller, ref);
    this.#coalescer.forget(key);
    this.#lastSeen.delete(key);
  }

  /**
   * Drops every record kept for this client, final or reused, and those in flight: after an
   * unbind it may no longer read those devices, so from then on the vendor decides again, and
   * nothing asked before the unbind answers a poll made after it.
   */
  forgetClient(caller: UpstreamCaller): void {
    const prefix = clientPrefix(caller);
    this.#coalescer.forgetPrefix(prefix);
    this.#finals.forgetPrefix(prefix);
    for (const key of [...this.#lastSeen.keys()])
      if (key.startsWith(prefix)) this.#lastSeen.delete(key);
  }
}

/** The start of every key of the caller's client; {@link accountKey} keeps the parts apart. */
function clientPrefix(caller: UpstreamCaller): string {
  return `${accountKey(caller)} `;
}

function statusKey(caller: UpstreamCaller, ref: CommandRef): string {
  return `${accountKey(caller)} ${ref.deviceId} ${ref.commandId}`;
}
