import { Link } from 'react-router';
import { Drawer } from '#client/components/drawer.tsx';
import { NotificationInbox } from './notification-inbox.tsx';

/** The inbox in a non-modal drawer (focus returns to the bell), loaded on first opening. */
export function NotificationPanel({ onClose }: { onClose: () => void }) {
  return (
    <Drawer
      title="Notifications"
      onClose={onClose}
      className="notification-panel"
      actions={
        <Link to="/notifications" onClick={onClose}>
          All notifications
        </Link>
      }
    >
      <NotificationInbox onFollowLink={onClose} />
    </Drawer>
  );
}
