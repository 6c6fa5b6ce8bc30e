import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { NotificationPageSchema, type NotificationPage } from '#domain/notifications.ts';
import { apiRequest } from '#client/lib/api-client.ts';
import { notificationKeys } from './notification-keys.ts';

/** Notifications per page of the inbox. */
export const NOTIFICATION_PAGE_SIZE = 20;

/** Inbox poll while live updates are off, ms; while live, notifications arrive as events. */
export const INBOX_POLL_MS = 60_000;

/** `GET /api/notifications`: a page of notifications, newest first, older than `before`, with the unread count. */
export function getNotificationPage(
  before: string | undefined,
  signal?: AbortSignal,
): Promise<NotificationPage> {
  return apiRequest('/notifications', NotificationPageSchema, {
    query: { limit: String(NOTIFICATION_PAGE_SIZE), before },
    signal,
  });
}

/** The inbox page by page (the first carries the bell's unread count); not polled while `live`. */
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
