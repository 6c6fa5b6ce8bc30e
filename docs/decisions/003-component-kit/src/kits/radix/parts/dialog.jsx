import { useState } from 'react';
import { Dialog } from 'radix-ui';

export default function DialogPart() {
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Dialog</h2>
      <Dialog.Root open={open} onOpenChange={setOpen}>
        <Dialog.Trigger>New command</Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay className="overlay" />
          <Dialog.Content className="modal" aria-describedby={undefined}>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                setResult(`submitted ${new FormData(e.currentTarget).get('power')}`);
                setOpen(false);
              }}
            >
              <Dialog.Title>New command</Dialog.Title>
              <label>
                Power (kW) <input name="power" defaultValue="-2" />
              </label>
              <button type="submit">Submit</button>
              <Dialog.Close>Cancel</Dialog.Close>
            </form>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
      <output data-testid="dialog-result">{result}</output>
    </section>
  );
}
