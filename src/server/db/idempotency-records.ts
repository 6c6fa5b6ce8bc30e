import { and, eq } from 'drizzle-orm';
import type { Account } from '#domain/account.ts';
import type { Database } from '#infra/database.ts';
import { ofAccount } from './account-rows.ts';
import { idempotencyRecords } from './schema.ts';

/** What can be made under an `Idempotency-Key`: a ledger entry, a queued change, a fleet job. */
export type KeyHolderKind = (typeof idempotencyRecords.$inferSelect)['holder'];

/** The record of one holder of a key: its ID (a ledger entry's as text) and request fingerprint. */
export interface IdempotencyRecord {
  holderId: string;
  requestHash: string | null;
  createdAtMs: number;
}

/** Each holder of one key of an account; a holder is absent when nothing of it was made. */
export type KeyRecords = Partial<Record<KeyHolderKind, IdempotencyRecord>>;

/**
 * Who holds `idempotencyKey` of `owner`'s account (docs/architecture.md, Ledger): the one lookup
 * of a key, read from `bff.idempotency_records`. `db` may be a transaction, so a writer can look
 * under its locks.
 */
export async function recordsOfKey(
  db: Database,
  owner: Account,
  idempotencyKey: string,
): Promise<KeyRecords> {
  const rows = await db
    .select()
    .from(idempotencyRecords)
    .where(
      and(
        ofAccount(idempotencyRecords, owner),
        eq(idempotencyRecords.idempotencyKey, idempotencyKey),
      ),
    );
  return Object.fromEntries(
    rows.map((row) => [
      row.holder,
      {
        holderId: String(row.ledgerEntryId ?? row.queuedChangeId ?? row.fleetJobId),
        requestHash: row.requestHash,
        createdAtMs: row.createdAt.getTime(),
      },
    ]),
  );
}

/**
 * Records that `holder` `holderId` (a ledger entry's ID as text) was made under `idempotencyKey`.
 * Called in the transaction that makes the holder, so no holder is made unrecorded.
 *
 * @throws when the key already has a record of that holder (the primary key), as the holder's own
 *   unique index would.
 */
export async function writeKeyRecord(
  tx: Database,
  record: {
    owner: Account;
    idempotencyKey: string;
    holder: KeyHolderKind;
    holderId: string;
    requestHash: string | null;
    nowMs: number;
  },
): Promise<void> {
  await tx.insert(idempotencyRecords).values({
    region: record.owner.region,
    clientId: record.owner.clientId,
    idempotencyKey: record.idempotencyKey,
    holder: record.holder,
    ledgerEntryId: record.holder === 'ledger' ? Number(record.holderId) : null,
    queuedChangeId: record.holder === 'queue' ? record.holderId : null,
    fleetJobId: record.holder === 'fleetJob' ? record.holderId : null,
    requestHash: record.requestHash,
    createdAt: new Date(record.nowMs),
  });
}

/** {@link recordsOfKey} on the BFF's database, as the services are given it. */
export type KeyLookup = (owner: Account, idempotencyKey: string) => Promise<KeyRecords>;
