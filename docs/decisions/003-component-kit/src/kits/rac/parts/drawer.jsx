import { useState } from 'react';
import { Button, Dialog, Heading } from 'react-aria-components';
import { FocusScope } from 'react-aria';

// RAC's Modal and Sheet are modal; a non-modal drawer is a standalone Dialog (role="dialog",
// no aria-modal) in a FocusScope that moves focus in and restores it, without containing it.
export default function DrawerPart() {
  const [open, setOpen] = useState(false);
  return (
    <section className="part">
      <h2>Drawer</h2>
      <Button aria-expanded={open} onPress={() => setOpen(true)}>
        Details
      </Button>
      {open && (
        <FocusScope autoFocus restoreFocus>
          <div className="drawer" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
            <Dialog>
              <Heading slot="title">Command details</Heading>
              <p>BAT-001, discharge 2 kW, 14:05-15:05 CET.</p>
              <Button onPress={() => setOpen(false)}>Close</Button>
            </Dialog>
          </div>
        </FocusScope>
      )}
    </section>
  );
}
