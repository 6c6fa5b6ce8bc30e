import { actorOf } from '#domain/account.ts';
import type { ChangeQueue } from '../budget/change-queue.ts';
import type { QueuedChangeRow } from '../budget/queued-change-rows.ts';
import { mayResend, type LedgerRow } from '../ledger/ledger-rows.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { Session } from '../session/session-store.ts';

/** The record that answers for an `Idempotency-Key` of a change to a device. */
export type KeyHolder =
  { record: 'ledger'; entry: LedgerRow } | { record: 'queue'; row: QueuedChangeRow } | undefined;

/**
 * Which record holds `idempotencyKey` of `caller`'s account and person (docs/architecture.md,
 * Ledger; docs/decisions/007-device-call-budget.md, section 2): the ledger's entry of a call that
 * was sent, or may have been (it replays or settles it), else the queued change made under it (it
 * says where the change stands), else none (a new change, or a retry of one the ledger recorded
 * as not sent, which may go again). A fleet job's key is its own (`FleetJobs`, above this folder).
 */
export async function keyHolder(
  records: { ledger: Ledger; queue: ChangeQueue },
  caller: Session,
  idempotencyKey: string,
): Promise<KeyHolder> {
  const entry = await records.ledger.entryByKey(caller, idempotencyKey);
  if (entry && !mayResend(entry)) return { record: 'ledger', entry };
  const row = await records.queue.findByKey(actorOf(caller), idempotencyKey);
  return row ? { record: 'queue', row } : undefined;
}
