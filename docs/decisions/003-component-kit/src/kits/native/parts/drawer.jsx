import { useRef, useState } from 'react';

// A non-modal <dialog> (show(), not showModal()): no focus trap, no Escape of its own.
export default function DrawerPart() {
  const ref = useRef(null);
  const opener = useRef(null);
  const [open, setOpen] = useState(false);
  const close = () => {
    ref.current.close();
    setOpen(false);
    opener.current?.focus();
  };
  return (
    <section className="part">
      <h2>Drawer</h2>
      <button
        type="button"
        ref={opener}
        aria-expanded={open}
        onClick={() => {
          ref.current.show();
          setOpen(true);
          ref.current.querySelector('button')?.focus();
        }}
      >
        Details
      </button>
      <dialog
        ref={ref}
        className="drawer"
        aria-labelledby="native-drawer-title"
        onKeyDown={(e) => e.key === 'Escape' && close()}
      >
        <h2 id="native-drawer-title">Command details</h2>
        <p>BAT-001, discharge 2 kW, 14:05-15:05 CET.</p>
        <button type="button" onClick={close}>
          Close
        </button>
      </dialog>
    </section>
  );
}
