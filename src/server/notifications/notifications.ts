import { and, desc, eq, inArray, isNull, lt, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import {
  NOTIFICATION_KINDS,
  type MarkNotificationsRead,
  type Notification,
  type NotificationKind,
  type NotificationPage,
  type NotificationQuery,
} from '#domain/notifications.ts';
import { ROLES, type Role } from '#domain/roles.ts';
import type { Database } from '#infra/database.ts';
import { notificationReads, notifications } from '../db/schema.ts';
import { ofAccount } from '../db/account-rows.ts';
import type { AccountEvents } from '../events/account-events.ts';
import type { Queryable } from '../events/event-store.ts';
import { personKey, type Account, type Person } from '#domain/account.ts';
import { planNotification, type NotifyInput } from './notification-rules.ts';

/** What is older is in the ledger and the command history. */
export const NOTIFICATION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export const NOTIFICATION_PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface NotificationsOptions {
  db: Database;
  events: AccountEvents;
  now: () => number;
  log: FastifyBaseLogger;
}

/**
 * The notification inbox of each person (docs/architecture.md, Notifications); every change
 * publishes an account event, so every tab of the person updates.
 */
export class Notifications {
  readonly #db: Database;
  readonly #events: AccountEvents;
  readonly #now: () => number;
  readonly #log: FastifyBaseLogger;
  #pruneTimer: NodeJS.Timeout | undefined;

  constructor(options: NotificationsOptions) {
    this.#db = options.db;
    this.#events = options.events;
    this.#now = options.now;
    this.#log = options.log;
  }

  /**
   * Nothing is kept or pushed unless `tx` commits.
   *
   * @returns the notification's ID, or undefined when the rule names nobody.
   * @throws when the database refuses the write.
   */
  async notify(input: NotifyInput, options: { tx?: Queryable } = {}): Promise<string | undefined> {
    const plan = planNotification(input);
    if (plan.audience.kind === 'nobody') return undefined;
    const { audience } = plan;
    const write = async (tx: Queryable): Promise<string> => {
      const [row] = await tx
        .insert(notifications)
        .values({
          region: input.account.region,
          clientId: input.account.clientId,
          recipient: audience.kind === 'person' ? personKey(audience.person) : null,
          excluded:
            audience.kind === 'everyone' && audience.except ? personKey(audience.except) : null,
          forRole: audience.kind === 'role' ? audience.role : null,
          kind: plan.facts.kind,
          title: plan.title,
          body: plan.body,
          link: plan.link,
          timeZone: plan.timeZone ?? null,
          windowStart: plan.window ? new Date(plan.window.startTime) : null,
          windowEnd: plan.window ? new Date(plan.window.endTime) : null,
          facts: plan.facts,
          createdAt: new Date(this.#now()),
        })
        .returning({ id: notifications.id });
      if (!row) throw new Error('the notification was not written');
      const notificationId = String(row.id);
      await this.#events.publish(
        input.account,
        { type: 'notificationCreated', data: { notificationId } },
        { tx, recipient: audience.kind === 'person' ? audience.person : undefined },
      );
      return notificationId;
    };
    return options.tx ? write(options.tx) : this.#db.transaction(write);
  }

  /** @param role the reader's: a notice for a role above it is not theirs (default the lowest). */
  async page(
    account: Account,
    person: Person,
    query: NotificationQuery,
    role: Role = 'viewer',
  ): Promise<NotificationPage> {
    const key = personKey(person);
    const rows = await this.#db
      .select({ notification: notifications, readAt: notificationReads.readAt })
      .from(notifications)
      .leftJoin(
        notificationReads,
        and(
          eq(notificationReads.notificationId, notifications.id),
          eq(notificationReads.person, key),
        ),
      )
      .where(
        and(
          visibleTo(account, key, role),
          query.before ? lt(notifications.id, Number(query.before)) : undefined,
        ),
      )
      .orderBy(desc(notifications.id))
      .limit(query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      notifications: page.flatMap(({ notification, readAt }) => {
        const answer = toNotification(notification, readAt);
        return answer ? [answer] : [];
      }),
      unreadCount: await this.unreadCount(account, person, this.#db, role),
      ...(rows.length > query.limit && last ? { nextBefore: String(last.notification.id) } : {}),
    };
  }

  async unreadCount(
    account: Account,
    person: Person,
    tx: Queryable = this.#db,
    role: Role = 'viewer',
  ): Promise<number> {
    const key = personKey(person);
    const [row] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(notifications)
      .where(and(visibleTo(account, key, role), unread(key)));
    return Number(row?.count ?? 0);
  }

  /** IDs that are not theirs are left alone. @returns their unread count afterwards. */
  async markRead(
    account: Account,
    person: Person,
    request: MarkNotificationsRead,
    role: Role = 'viewer',
  ): Promise<{ unreadCount: number }> {
    const key = personKey(person);
    const readAt = new Date(this.#now());
    return this.#db.transaction(async (tx) => {
      const which =
        'ids' in request
          ? sql`${notifications.id} in (${sql.join(
              request.ids.map((id) => sql`${Number(id)}`),
              sql`, `,
            )})`
          : request.throughId
            ? lte(notifications.id, Number(request.throughId))
            : undefined;
      const marked = await tx
        .insert(notificationReads)
        .select(
          tx
            .select({
              notificationId: notifications.id,
              person: sql<string>`${key}::text`.as('person'),
              readAt: sql<Date>`${readAt.toISOString()}::timestamptz`.as('read_at'),
            })
            .from(notifications)
            .where(and(visibleTo(account, key, role), which, unread(key))),
        )
        .onConflictDoNothing()
        .returning({ notificationId: notificationReads.notificationId });
      if (marked.length > 0)
        await this.#events.publish(
          account,
          {
            type: 'notificationsRead',
            data:
              'ids' in request
                ? { notificationIds: marked.map((row) => String(row.notificationId)) }
                : { all: true },
          },
          { tx, recipient: person },
        );
      return { unreadCount: await this.unreadCount(account, person, tx, role) };
    });
  }

  /** Never throws. */
  async prune(): Promise<void> {
    await this.#db
      .delete(notifications)
      .where(lt(notifications.createdAt, new Date(this.#now() - NOTIFICATION_RETENTION_MS)))
      .catch((error: unknown) => {
        this.#log.warn({ err: error }, 'notifications: pruning old notifications failed');
      });
  }

  startPruning(): void {
    this.#pruneTimer = setInterval(() => void this.prune(), NOTIFICATION_PRUNE_EVERY_MS);
    this.#pruneTimer.unref();
  }

  stopPruning(): void {
    clearInterval(this.#pruneTimer);
  }
}

/** Everyone's but those that leave them out (they did what it tells of). */
function visibleTo(account: Account, person: string, role: Role): SQL | undefined {
  return and(
    ofAccount(notifications, account),
    or(
      eq(notifications.recipient, person),
      and(
        isNull(notifications.recipient),
        or(isNull(notifications.excluded), ne(notifications.excluded, person)),
        or(
          isNull(notifications.forRole),
          inArray(notifications.forRole, ROLES.slice(0, ROLES.indexOf(role) + 1)),
        ),
      ),
    ),
  );
}

function unread(person: string): SQL {
  return sql`not exists (select 1 from ${notificationReads} where ${notificationReads.notificationId} = ${notifications.id} and ${notificationReads.person} = ${person})`;
}

function toNotification(
  row: typeof notifications.$inferSelect,
  readAt: Date | null,
): Notification | undefined {
  // A kind a newer version wrote is left out by this one.
  if (!(NOTIFICATION_KINDS as readonly string[]).includes(row.kind)) return undefined;
  return {
    id: String(row.id),
    kind: row.kind as NotificationKind,
    title: row.title,
    body: row.body,
    ...(row.link ? { link: row.link } : {}),
    ...(row.timeZone ? { timeZone: row.timeZone } : {}),
    ...(row.windowStart && row.windowEnd
      ? {
          window: {
            startTime: row.windowStart.toISOString(),
            endTime: row.windowEnd.toISOString(),
          },
        }
      : {}),
    createdAt: row.createdAt.toISOString(),
    ...(readAt ? { readAt: readAt.toISOString() } : {}),
  };
}
