import { useState } from 'react';
import { Button } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import '@mantine/core/styles/Notification.css';
import '@mantine/core/styles/CloseButton.css';
import '@mantine/core/styles/Button.css';
import '@mantine/core/styles/UnstyledButton.css';
import '@mantine/notifications/styles.css';
import { TOAST_TIMEOUT_MS } from '../../../shared/data.js';

// Mantine notifications have no action slot: the Undo button goes into the message.
export default function ToastPart() {
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Toast</h2>
      <Notifications />
      <Button
        onClick={() => {
          const id = notifications.show({
            title: 'Command cancelled',
            autoClose: TOAST_TIMEOUT_MS,
            message: (
              <Button
                size="xs"
                variant="white"
                onClick={() => {
                  setResult('undone');
                  notifications.hide(id);
                }}
              >
                Undo
              </Button>
            ),
          });
        }}
      >
        Cancel command
      </Button>
      <output data-testid="toast-result">{result}</output>
    </section>
  );
}
