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

/**
 * The rows of one device of an account: {@link ofAccount} and the device ID, as the read model's
 * per-device tables key them.
 */
export function ofDevice(
  table: AccountTable & { deviceId: PgColumn },
  account: Account,
  deviceId: string,
): SQL | undefined {
  return and(ofAccount(table, account), eq(table.deviceId, deviceId));
}
