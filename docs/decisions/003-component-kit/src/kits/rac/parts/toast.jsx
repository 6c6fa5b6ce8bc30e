import { useState } from 'react';
import {
  Button,
  Text,
  UNSTABLE_Toast as Toast,
  UNSTABLE_ToastContent as ToastContent,
  UNSTABLE_ToastQueue as ToastQueue,
  UNSTABLE_ToastRegion as ToastRegion,
} from 'react-aria-components';
import { TOAST_TIMEOUT_MS } from '../../../shared/data.js';

// One queue for the app; the region is a landmark ("Notifications") that F6 reaches.
const queue = new ToastQueue({ maxVisibleToasts: 3 });

export default function ToastPart() {
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Toast</h2>
      <Button
        onPress={() =>
          queue.add(
            { title: 'Command cancelled', onUndo: () => setResult('undone') },
            { timeout: TOAST_TIMEOUT_MS },
          )
        }
      >
        Cancel command
      </Button>
      <ToastRegion queue={queue}>
        {({ toast }) => (
          <Toast toast={toast}>
            <ToastContent>
              <Text slot="title">{toast.content.title}</Text>
            </ToastContent>
            <Button
              onPress={() => {
                toast.content.onUndo();
                queue.close(toast.key);
              }}
            >
              Undo
            </Button>
            <Button slot="close" aria-label="Dismiss">
              ×
            </Button>
          </Toast>
        )}
      </ToastRegion>
      <output data-testid="toast-result">{result}</output>
    </section>
  );
}
