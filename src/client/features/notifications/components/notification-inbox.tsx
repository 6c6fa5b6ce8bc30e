import { useState } from 'react';
import { Link } from 'react-router';
import type { Notification } from '#domain/notifications.ts';
import { ErrorAlert } from '#client/components/error-alert.tsx';
import { Loading } from '#client/components/loading.tsx';
import { isLive, usePushState } from '#client/lib/push-stream.ts';
import {
  formatInZoneWithUtc,
  formatWindowInZoneWithUtc,
  isKnownTimeZone,
} from '#client/lib/time.ts';
import { useNotifications } from '../api/get-notifications.ts';
import { useMarkNotificationsRead } from '../api/mark-notifications-read.ts';
import './notifications.css';

interface NotificationInboxProps {
  /** Called when the person follows a notification's link (the panel closes). */
  onFollowLink?: () => void;
}

/**
 * The person's notifications, newest first, unread marked in words. "Mark all read" marks up to
 * the newest shown, so one arriving meanwhile stays unread. Live by push, polled while it is down.
 */
export function NotificationInbox({ onFollowLink }: NotificationInboxProps) {
  const live = isLive(usePushState());
  const inbox = useNotifications(live);
  const markRead = useMarkNotificationsRead();
  const [announcement, setAnnouncement] = useState('');

  if (inbox.isPending) return <Loading what="Loading notifications…" />;
  if (inbox.isError && !inbox.data)
    return (
      <ErrorAlert
        error={inbox.error}
        what="Could not load your notifications."
        onRetry={() => void inbox.refetch()}
      />
    );

  const pages = inbox.data.pages;
  const notifications = pages.flatMap((page) => page.notifications);
  const unreadCount = pages[0]?.unreadCount ?? 0;
  const newest = notifications[0];

  const markAllRead = () => {
    if (unreadCount === 0 || markRead.isPending || !newest) return;
    markRead.mutate(
      { all: true, throughId: newest.id },
      { onSuccess: () => setAnnouncement('All notifications marked read.') },
    );
  };

  return (
    <div className="notification-inbox">
      <div className="notification-inbox-bar">
        <p className="notification-unread-count">
          {unreadCount === 0 ? 'Nothing unread' : `${unreadCount} unread`}
        </p>
        {notifications.length > 0 ? (
          <button
            type="button"
            className="small"
            // Not `disabled`: focus stays on it after it has done its work.
            aria-disabled={unreadCount === 0 || markRead.isPending}
            onClick={markAllRead}
          >
            {markRead.isPending ? 'Marking read…' : 'Mark all read'}
          </button>
        ) : null}
        <span className="visually-hidden" aria-live="polite">
          {announcement}
        </span>
      </div>
      {markRead.isError ? (
        <ErrorAlert
          error={markRead.error}
          what="Could not mark your notifications read."
          focusOnShow
        />
      ) : null}
      {notifications.length === 0 ? (
        <div className="empty-state">
          <p>
            <strong>No notifications.</strong> You are told here when a device cancels a command of
            yours, when devices of your batch or fleet job fail, when a queued change of yours is
            sent or withdrawn, and when someone unbinds a site.
          </p>
        </div>
      ) : (
        <ol className="notification-list" aria-label="Notifications, newest first">
          {notifications.map((notification) => (
            <NotificationItem
              key={notification.id}
              notification={notification}
              onFollow={() => {
                if (!notification.readAt) markRead.mutate({ ids: [notification.id] });
                onFollowLink?.();
              }}
            />
          ))}
        </ol>
      )}
      {inbox.hasNextPage ? (
        <button
          type="button"
          className="small"
          aria-disabled={inbox.isFetchingNextPage}
          onClick={() => {
            if (!inbox.isFetchingNextPage) void inbox.fetchNextPage();
          }}
        >
          {inbox.isFetchingNextPage ? 'Loading older…' : 'Show older notifications'}
        </button>
      ) : null}
    </div>
  );
}

function NotificationItem({
  notification,
  onFollow,
}: {
  notification: Notification;
  onFollow: () => void;
}) {
  const zone =
    notification.timeZone && isKnownTimeZone(notification.timeZone) ? notification.timeZone : 'UTC';
  const unread = !notification.readAt;
  return (
    <li className={unread ? 'notification notification-unread' : 'notification'}>
      <p className="notification-title">
        {unread ? <span className="notification-unread-mark">Unread</span> : null}
        {notification.link ? (
          <Link to={notification.link} onClick={onFollow}>
            {notification.title}
          </Link>
        ) : (
          <strong>{notification.title}</strong>
        )}
      </p>
      <p className="notification-body">{notification.body}</p>
      {notification.window ? (
        <p className="notification-time">
          Window{' '}
          {formatWindowInZoneWithUtc(
            notification.window.startTime,
            notification.window.endTime,
            zone,
          )}
        </p>
      ) : null}
      <p className="notification-time">
        <time dateTime={notification.createdAt}>
          {formatInZoneWithUtc(notification.createdAt, zone)}
        </time>
      </p>
    </li>
  );
}
