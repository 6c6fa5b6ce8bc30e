import { and, asc, desc, eq, inArray, isNotNull } from 'drizzle-orm';
import { sameAccount } from '#domain/account.ts';
import { QUEUED_CHANGE_LIST_MAX, WAITING_CHANGE_STATES } from '#domain/queued-change.ts';
import type { Database } from '#infra/database.ts';
import { queuedChangeDevices, queuedChanges } from '../db/schema.ts';
import { ofAccount } from '../db/account-rows.ts';
import { changeRowOf, type ChangeOwner, type QueuedChangeRow } from './queued-change-rows.ts';

/** What the table of queued changes answers without a lock; {@link QueuedChangeStore} writes it. */
export class QueuedChangeReads {
  protected readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async find(id: string): Promise<QueuedChangeRow | undefined> {
    const [row] = await this.db.select().from(queuedChanges).where(eq(queuedChanges.id, id));
    return row ? changeRowOf(row) : undefined;
  }

  async findOwned(owner: Pick<ChangeOwner, 'region' | 'clientId'>, id: string) {
    const row = await this.find(id);
    return row && sameAccount(row.owner, owner) ? row : undefined;
  }

  /**
   * By default at most 50, and `QUEUED_CHANGE_LIST_MAX` of those still waiting: the timeline draws
   * every waiting change's window and counts it in its overlap check.
   */
  async list(
    owner: Pick<ChangeOwner, 'region' | 'clientId'>,
    options: { waiting?: boolean; deviceId?: string; limit?: number } = {},
  ): Promise<QueuedChangeRow[]> {
    const rows = await this.db
      .select()
      .from(queuedChanges)
      .where(
        and(
          ofAccount(queuedChanges, owner),
          options.waiting ? inArray(queuedChanges.state, [...WAITING_CHANGE_STATES]) : undefined,
          options.deviceId === undefined
            ? undefined
            : inArray(
                queuedChanges.id,
                this.db
                  .select({ changeId: queuedChangeDevices.changeId })
                  .from(queuedChangeDevices)
                  .where(
                    and(
                      eq(queuedChangeDevices.region, owner.region),
                      eq(queuedChangeDevices.deviceId, options.deviceId),
                    ),
                  ),
              ),
        ),
      )
      .orderBy(desc(queuedChanges.seq))
      .limit(options.limit ?? (options.waiting ? QUEUED_CHANGE_LIST_MAX : 50));
    return rows.map(changeRowOf);
  }

  async due(nowMs: number, limit = 100): Promise<{ ids: string[]; nextAtMs: number | undefined }> {
    const rows = await this.db
      .select({ id: queuedChanges.id, nextAt: queuedChanges.nextAt })
      .from(queuedChanges)
      .where(
        and(
          inArray(queuedChanges.state, [...WAITING_CHANGE_STATES]),
          isNotNull(queuedChanges.nextAt),
        ),
      )
      .orderBy(asc(queuedChanges.nextAt))
      .limit(limit + 1);
    const ids: string[] = [];
    for (const row of rows) {
      const atMs = row.nextAt?.getTime() ?? nowMs;
      if (atMs > nowMs) return { ids, nextAtMs: atMs };
      if (ids.length < limit) ids.push(row.id);
    }
    return { ids, nextAtMs: undefined };
  }
}
