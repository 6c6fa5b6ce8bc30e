import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { NotificationPageSchema, type NotificationPage } from '../../../../domain/notifications.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { notificationKeys } from './notification-keys.ts';

/** Notifications per page of the inbox. */
export const NOTIFICATION_PAGE_SIZE = 20;

/**
 * How often the inbox is read again while live updates are off (the stream down, the tab just
 * shown), ms. While they are live a new or read notification arrives as an event instead.
 */
export const INBOX_POLL_MS = 60_000;

/**
 * `GET /api/notifications`: one page of the signed-in person's notifications, newest first,
 * older than `before` when given, with their unread count.
 */
export function getNotificationPage(
  before: string | undefined,
  signal?: AbortSignal,
): Promise<NotificationPage> {
  return apiRequest('/notifications', NotificationPageSchema, {
    query: { limit: String(NOTIFICATION_PAGE_SIZE), before },
    signal,
  });
}

/**
 * The inbox, page by page; the first page carries the unread count the bell shows. `live`: push
 * updates arrive (`usePushState`), so the inbox is not polled.
 */
export const notificationsQueryOptions = (live: boolean) =>
  infiniteQueryOptions({
    queryKey: notificationKeys.list(),
    queryFn: ({ pageParam, signal }) => getNotificationPage(pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextBefore,
    refetchInterval: live ? false : INBOX_POLL_MS,
  });

export const useNotifications = (live: boolean) =>
  useInfiniteQuery(notificationsQueryOptions(live));
