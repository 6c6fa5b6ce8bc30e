import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { isLive, usePushState } from '#client/lib/push-stream.ts';
import { useNotifications } from '../api/get-notifications.ts';
import './notifications.css';

const NotificationPanel = lazy(() =>
  import('./notification-panel.tsx').then(({ NotificationPanel }) => ({
    default: NotificationPanel,
  })),
);

/** The count shown on the bell; more reads "99+". */
export function unreadBadge(count: number): string {
  return count > 99 ? '99+' : String(count);
}

/**
 * The header's bell with the unread count (in its name, and announced on arrival); a failed read
 * shows no count rather than an error in the header.
 */
export function NotificationBell() {
  const live = isLive(usePushState());
  const inbox = useNotifications(live);
  const [open, setOpen] = useState(false);
  const unread = inbox.data?.pages[0]?.unreadCount ?? 0;
  const announcement = useArrivalAnnouncement(inbox.data ? unread : undefined);
  const name = unread > 0 ? `Notifications, ${unread} unread` : 'Notifications';
  return (
    <>
      <button
        type="button"
        className="notification-bell"
        aria-label={name}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen((was) => !was)}
      >
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
          <path
            d="M12 3a6 6 0 0 0-6 6v3.6L4.3 16a1 1 0 0 0 .9 1.5h13.6a1 1 0 0 0 .9-1.5L18 12.6V9a6 6 0 0 0-6-6Zm-2.5 16a2.5 2.5 0 0 0 5 0h-5Z"
            fill="currentColor"
          />
        </svg>
        {unread > 0 ? <span className="notification-count">{unreadBadge(unread)}</span> : null}
      </button>
      <span className="visually-hidden" aria-live="polite">
        {announcement}
      </span>
      {open ? (
        <Suspense fallback={null}>
          <NotificationPanel onClose={() => setOpen(false)} />
        </Suspense>
      ) : null}
    </>
  );
}

/** "1 new notification" when the unread count grows after it was first read; else empty. */
function useArrivalAnnouncement(unread: number | undefined): string {
  const previous = useRef<number | undefined>(undefined);
  const [announcement, setAnnouncement] = useState('');
  useEffect(() => {
    const before = previous.current;
    previous.current = unread;
    if (unread === undefined || before === undefined || unread <= before) return;
    const added = unread - before;
    setAnnouncement(added === 1 ? '1 new notification' : `${added} new notifications`);
  }, [unread]);
  return announcement;
}
