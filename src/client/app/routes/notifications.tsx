import { NotificationInbox } from '../../features/notifications/components/notification-inbox.tsx';

/** `/notifications`: the signed-in person's whole inbox, page by page. */
export function NotificationsRoute() {
  return (
    <section aria-labelledby="notifications-heading">
      <h1 id="notifications-heading">Notifications</h1>
      <NotificationInbox />
    </section>
  );
}
