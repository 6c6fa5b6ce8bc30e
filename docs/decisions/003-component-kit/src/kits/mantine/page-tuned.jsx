// Mantine as the app would have to configure it for style-src 'self' and axe: no runtime <style>
// for CSS variables or global classes, the theme's colours overridden in a static CSS file, and
// names for the close buttons that have none by default.
import { CloseButton, MantineProvider, Modal, Notification } from '@mantine/core';
import '@mantine/core/styles/default-css-variables.css';
import '@mantine/core/styles/global.css';
import '@mantine/core/styles/baseline.css';
import parts from 'virtual:parts';
import './mantine.css';
import './mantine-tuned.css';

const theme = {
  components: {
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { 'aria-label': 'Dismiss' } },
    }),
    CloseButton: CloseButton.extend({ defaultProps: { 'aria-label': 'Close' } }),
  },
};

export default function Page() {
  return (
    <MantineProvider theme={theme} withCssVariables={false} withGlobalClasses={false}>
      <main>
        <h1>Kit probe: Mantine (configured)</h1>
        {parts.map(([name, Part]) => (
          <Part key={name} />
        ))}
      </main>
    </MantineProvider>
  );
}
