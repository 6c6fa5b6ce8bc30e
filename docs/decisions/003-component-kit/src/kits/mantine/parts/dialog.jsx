import { useState } from 'react';
import { Button, Modal, TextInput } from '@mantine/core';
import '@mantine/core/styles/ModalBase.css';
import '@mantine/core/styles/Modal.css';
import '@mantine/core/styles/Overlay.css';
import '@mantine/core/styles/Paper.css';
import '@mantine/core/styles/CloseButton.css';
import '@mantine/core/styles/Button.css';
import '@mantine/core/styles/Input.css';
import '@mantine/core/styles/UnstyledButton.css';

export default function DialogPart() {
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Dialog</h2>
      <Button onClick={() => setOpen(true)}>New command</Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="New command">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setResult(`submitted ${new FormData(e.currentTarget).get('power')}`);
            setOpen(false);
          }}
        >
          <TextInput name="power" label="Power (kW)" defaultValue="-2" />
          <Button type="submit">Submit</Button>
          <Button variant="default" onClick={() => setOpen(false)}>
            Cancel
          </Button>
        </form>
      </Modal>
      <output data-testid="dialog-result">{result}</output>
    </section>
  );
}
