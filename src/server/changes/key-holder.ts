import { actorOf } from '#domain/account.ts';
import type { ChangeQueue } from '../budget/change-queue.ts';
import type { QueuedChangeRow } from '../budget/queued-change-rows.ts';
import type { KeyLookup } from '../db/idempotency-records.ts';
import { mayResend, type LedgerRow } from '../ledger/ledger-rows.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { Session } from '../session/session-store.ts';

/** The record that answers for an `Idempotency-Key` of a change to a device. */
export type KeyHolder =
  { record: 'ledger'; entry: LedgerRow } | { record: 'queue'; row: QueuedChangeRow } | undefined;

/** Where a change's key is looked up, and the records it may name. */
export interface KeyRecords {
  keys: KeyLookup;
  ledger: Ledger;
  queue: ChangeQueue;
}

/**
 * Which record holds `idempotencyKey` of `caller`'s account, as the key's one idempotency record
 * names it (`bff.idempotency_records`; docs/architecture.md, Ledger;
 * docs/decisions/007-device-call-budget.md, section 2): the ledger's entry of a call that was
 * sent, or may have been (it replays or settles it), else the queued change made under it (it
 * says where the change stands), else none (a new change, or a retry of one the ledger recorded
 * as not sent, which may go again). A fleet job's record of the same key is not a change's.
 */
export async function keyHolder(
  records: KeyRecords,
  caller: Session,
  idempotencyKey: string,
): Promise<KeyHolder> {
  const held = await records.keys(actorOf(caller), idempotencyKey);
  const entry = held.ledger && (await records.ledger.store.findById(Number(held.ledger.holderId)));
  if (entry && !mayResend(entry)) return { record: 'ledger', entry };
  const row = held.queue && (await records.queue.row(actorOf(caller), held.queue.holderId));
  return row ? { record: 'queue', row } : undefined;
}

/** The queued change made under `idempotencyKey` of `caller`'s account, if any. */
export async function queuedByKey(
  records: Pick<KeyRecords, 'keys' | 'queue'>,
  caller: Session,
  idempotencyKey: string,
): Promise<QueuedChangeRow | undefined> {
  const { queue } = await records.keys(actorOf(caller), idempotencyKey);
  return queue && records.queue.row(actorOf(caller), queue.holderId);
}
