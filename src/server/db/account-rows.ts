import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Account } from '#domain/account.ts';

export interface AccountTable {
  region: PgColumn;
  clientId: PgColumn;
}

/**
 * Region and client ID, the two that make an account (src/domain/account.ts): every store goes
 * through it so no query can leave one out; `and(...)` the rest beside it.
 */
export function ofAccount(table: AccountTable, account: Account): SQL | undefined {
  return and(eq(table.region, account.region), eq(table.clientId, account.clientId));
}
