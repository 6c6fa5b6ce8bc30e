import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Account } from '../../domain/account.ts';

/** A table of the `bff` schema whose rows each belong to one account: its region and client ID. */
export interface AccountTable {
  region: PgColumn;
  clientId: PgColumn;
}

/**
 * The `where` condition of `account`'s rows of `table`: same region and same client ID, the two
 * that make an account (src/domain/account.ts). Every store reads and writes an account's rows
 * through it, so no query can leave one of the two out; add the rest of the query's conditions
 * next to it in an `and(...)`.
 */
export function ofAccount(table: AccountTable, account: Account): SQL | undefined {
  return and(eq(table.region, account.region), eq(table.clientId, account.clientId));
}
