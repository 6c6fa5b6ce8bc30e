import { Dialog } from 'radix-ui';

// modal={false}: no focus trap, no scroll lock, no aria-hidden on the page; Escape and focus
// return still work. Clicks outside do not close it.
export default function DrawerPart() {
  return (
    <section className="part">
      <h2>Drawer</h2>
      <Dialog.Root modal={false}>
        <Dialog.Trigger>Details</Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Content
            className="drawer"
            aria-describedby={undefined}
            onInteractOutside={(e) => e.preventDefault()}
          >
            <Dialog.Title>Command details</Dialog.Title>
            <p>BAT-001, discharge 2 kW, 14:05-15:05 CET.</p>
            <Dialog.Close>Close</Dialog.Close>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </section>
  );
}
