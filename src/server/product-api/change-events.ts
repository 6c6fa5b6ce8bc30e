import type { QueuedChange as NotifiedChange } from '#domain/notifications.ts';
import { MAX_EVENT_DEVICE_IDS } from '#domain/account-events.ts';
import {
  devicesOfChange,
  type QueuedChange,
  type QueuedChangeState,
} from '#domain/queued-change.ts';
import type { QueuedChangeRow } from '../budget/queued-change-rows.ts';
import type { AccountEvents } from '../events/account-events.ts';
import { actorName, personOf, type Account } from '#domain/account.ts';
import type { Notifications } from '../notifications/notifications.ts';
import { changeSealingContext } from '../changes/queued-step-sender.ts';
import { webhookLinks } from '../webhooks/webhook-links.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import type { Queryable } from '../events/event-store.ts';

/** What a notification about a queued change says it was and acts on. */
export interface NotifiedSubject {
  change: NotifiedChange;
  deviceId: string;
  deviceCount?: number | undefined;
  startTime?: string | undefined;
  endTime?: string | undefined;
}

/**
 * A queued change as a notification names it: its kind, its first device (and how many), and the
 * window it sends, when it sends one.
 */
export function notificationChangeOf(change: QueuedChange): NotifiedSubject {
  const deviceIds = devicesOfChange(change);
  const submitted = change.steps.find((step) => step.call === 'submit' || step.call === 'batch');
  const command =
    submitted?.call === 'submit'
      ? submitted.command
      : submitted?.call === 'batch'
        ? submitted.batch.command
        : undefined;
  return {
    change: change.kind,
    deviceId: deviceIds[0] as string,
    ...(deviceIds.length > 1 ? { deviceCount: deviceIds.length } : {}),
    ...(command ? { startTime: command.startTime, endTime: command.endTime } : {}),
  };
}

/** The site of a change's devices and its zone, as far as they are known. */
export interface ChangeSite {
  siteId?: string | undefined;
  timeZone?: string | undefined;
}

/**
 * The step of `row` that ended it failed (the last one tried), or undefined: its ledger entry
 * names the site of its devices and the site's zone.
 */
export function failedStepKey(row: QueuedChangeRow): string | undefined {
  const index = row.steps.findLastIndex((step) => step.state === 'failed');
  return index < 0 ? undefined : row.change.steps[index]?.idempotencyKey;
}

/** Where the listener writes what it could not do (pino's logger fits). */
interface ListenerLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * The queue of changes' listener (`ChangeQueue`'s `onChange`): every change of a queued change's
 * state or planned time this instance wrote is an account event `queuedChangeChanged`, so every
 * open browser of the account reads its changes (and, once a step went, the devices' commands)
 * again; a change that waited for a slot and was then sent tells the person who made it
 * (`queuedChangeSent`), and one that the budget could no longer send before its window tells
 * them it was withdrawn (`queuedChangeWithdrawn`, `windowPassed`); one that went and was refused
 * by the vendor, or could not be sent after every try, tells everyone of the account why
 * (`queuedChangeFailed`: every screen that showed it queued promised it). An operator's withdrawal is
 * notified by its route, which knows who withdrew it. The token cache forgets an ended change's
 * caller. `siteOf` finds the site of a failed change's devices (the ledger entry of its failed
 * step), for the notification's link and clock.
 */
export function queuedChangeListener(options: {
  events: AccountEvents;
  notifications: Notifications;
  forgetCaller: (callerId: string) => void;
  log: ListenerLog;
  siteOf?: ((row: QueuedChangeRow) => Promise<ChangeSite>) | undefined;
}): (row: QueuedChangeRow) => void {
  const { events, notifications, forgetCaller, log, siteOf } = options;
  /** What this instance published last of each change still waiting: state and planned time. */
  const published = new Map<string, string>();
  const failed = (what: string, row: QueuedChangeRow) => (error: unknown) =>
    log.warn(
      { changeId: row.id, reason: error instanceof Error ? error.message : String(error) },
      `queued change ${what} could not be written`,
    );
  return (row) => {
    const ended = !WAITING.has(row.state);
    const mark = `${row.state} ${row.nextAtMs ?? ''}`;
    if (published.get(row.id) === mark) return;
    if (ended) {
      published.delete(row.id);
      forgetCaller(changeSealingContext(row.id));
    } else published.set(row.id, mark);
    const account = { region: row.owner.region, clientId: row.owner.clientId };
    void events
      .publish(account, {
        type: 'queuedChangeChanged',
        data: {
          changeId: row.id,
          state: row.state,
          deviceIds: devicesOfChange(row.change).slice(0, MAX_EVENT_DEVICE_IDS),
        },
      })
      .catch(failed('event', row));
    const madeBy = personOf(row.owner);
    if (row.state === 'sent' && waited(row)) {
      const submitted = row.steps.findLast((step) => step.answer?.status === 202)?.answer?.body as
        { id?: unknown } | undefined;
      void notifications
        .notify({
          account,
          kind: 'queuedChangeSent',
          ...notificationChangeOf(row.change),
          ...(typeof submitted?.id === 'string' && submitted.id ? { commandId: submitted.id } : {}),
          madeBy,
        })
        .catch(failed('notification', row));
    }
    const failure = row.outcome?.failure;
    if (row.state === 'failed' && (failure === 'refused' || failure === 'not_sent')) {
      const name = actorName(row.owner);
      // The site links the notification to the device's page and gives its clock; without it
      // the notification still goes, linking to the sites.
      const site: Promise<ChangeSite> = siteOf
        ? siteOf(row).catch((): ChangeSite => ({}))
        : Promise.resolve({});
      void site
        .then((where) =>
          notifications.notify({
            account,
            kind: 'queuedChangeFailed',
            ...notificationChangeOf(row.change),
            ...(where.siteId ? { siteId: where.siteId } : {}),
            ...(where.timeZone ? { timeZone: where.timeZone } : {}),
            failure,
            detail: detailOf(row),
            madeBy: { person: madeBy, ...(name ? { name } : {}) },
          }),
        )
        .catch(failed('notification', row));
    }
    if (row.state === 'failed' && failure === 'budget_too_tight')
      void notifications
        .notify({
          account,
          kind: 'queuedChangeWithdrawn',
          ...notificationChangeOf(row.change),
          reason: 'windowPassed',
          madeBy,
          withdrawnBy: undefined,
        })
        .catch(failed('notification', row));
  };
}

/**
 * The queue of changes' `onEnded` (`QueuedChangeStore`): the webhook event of a change's end
 * (`change.sent`, `change.refused`, `change.withdrawn`; docs/automation.md, Webhooks), written in
 * the transaction that ends it, so it is delivered if and only if the end commits (docs/
 * architecture.md, Webhooks, Outbox). `siteOfDevice` reads the device's site within that
 * transaction, for the endpoints limited to sites.
 *
 * @throws what the outbox's write throws: the change does not end then, and its next try ends it.
 */
export function queuedChangeWebhook(options: {
  webhooks: WebhookOutbox;
  siteOfDevice: (account: Account, deviceId: string, tx: Queryable) => Promise<string | undefined>;
}): (tx: Queryable, row: QueuedChangeRow) => Promise<void> {
  const { webhooks, siteOfDevice } = options;
  return async (tx, row) => {
    const type = webhookTypeOf(row);
    if (!type) return;
    const account = { region: row.owner.region, clientId: row.owner.clientId };
    const { deviceId } = notificationChangeOf(row.change);
    const siteId = await siteOfDevice(account, deviceId, tx);
    await webhooks.record(
      account,
      {
        type,
        data: {
          changeId: row.id,
          deviceId,
          ...(siteId ? { siteId } : {}),
          state: row.state,
          ...(row.state === 'failed' ? { reason: detailOf(row) } : {}),
          links: {
            change: webhookLinks.change(row.id),
            deviceChanges: webhookLinks.deviceChanges(deviceId),
          },
        },
      },
      { tx },
    );
  };
}

/**
 * The webhook event of a queued change's end (docs/automation.md, Webhooks): sent; refused (by
 * the vendor, or not sent after every try); withdrawn (by an operator, or because the budget
 * could no longer send it before its window).
 */
function webhookTypeOf(
  row: QueuedChangeRow,
): 'change.sent' | 'change.refused' | 'change.withdrawn' | undefined {
  if (row.state === 'sent') return 'change.sent';
  if (row.state === 'withdrawn') return 'change.withdrawn';
  if (row.state !== 'failed') return undefined;
  const failure = row.outcome?.failure;
  if (failure === 'budget_too_tight') return 'change.withdrawn';
  // An unknown outcome is neither sent nor refused: the device command's status tells.
  return failure === 'refused' || failure === 'not_sent' ? 'change.refused' : undefined;
}

/** Most characters of a reason a notification keeps (domain `NotificationFactsSchema`). */
const MAX_DETAIL = 1000;

/** Why a change failed, in words (its outcome's, as the vendor's refusal was worded by the product). */
function detailOf(row: QueuedChangeRow): string {
  const detail = row.outcome?.detail.trim() || 'The vendor refused it.';
  return detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL - 1)}…` : detail;
}

const WAITING: ReadonlySet<QueuedChangeState> = new Set(['queued', 'sending']);

/**
 * True when the change waited for a slot: its first step went later than it was made. A change
 * sent at once was answered to the operator who made it, who needs no notification.
 */
function waited(row: QueuedChangeRow): boolean {
  const first = row.steps[0];
  return first !== undefined && first.plannedAtMs > row.createdAtMs;
}
