import { Link } from 'react-router';
import { Drawer } from '../../../components/drawer.tsx';
import { NotificationInbox } from './notification-inbox.tsx';

/**
 * The inbox beside the page (a non-modal drawer: focus moves in and back to the bell, Escape
 * closes it), with a way to the full page. Loaded when first opened, with React Aria.
 */
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
