import { useState } from 'react';
import { Button, Drawer } from '@mantine/core';
import '@mantine/core/styles/ModalBase.css';
import '@mantine/core/styles/Drawer.css';
import '@mantine/core/styles/Paper.css';
import '@mantine/core/styles/CloseButton.css';
import '@mantine/core/styles/Button.css';
import '@mantine/core/styles/UnstyledButton.css';

// The closest Mantine has to a non-modal side panel: a Drawer without overlay, focus trap or
// scroll lock.
export default function DrawerPart() {
  const [open, setOpen] = useState(false);
  return (
    <section className="part">
      <h2>Drawer</h2>
      <Button onClick={() => setOpen(true)}>Details</Button>
      <Drawer
        opened={open}
        onClose={() => setOpen(false)}
        position="right"
        title="Command details"
        withOverlay={false}
        trapFocus={false}
        lockScroll={false}
        closeOnClickOutside={false}
        withCloseButton={false}
      >
        <p>BAT-001, discharge 2 kW, 14:05-15:05 CET.</p>
        <Button onClick={() => setOpen(false)}>Close</Button>
      </Drawer>
    </section>
  );
}
