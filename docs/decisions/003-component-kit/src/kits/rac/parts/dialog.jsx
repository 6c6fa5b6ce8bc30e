import { useState } from 'react';
import {
  Button,
  Dialog,
  DialogTrigger,
  Heading,
  Input,
  Label,
  Modal,
  ModalOverlay,
  TextField,
} from 'react-aria-components';

export default function DialogPart() {
  const [result, setResult] = useState('');
  return (
    <section className="part">
      <h2>Dialog</h2>
      <DialogTrigger>
        <Button>New command</Button>
        <ModalOverlay isDismissable>
          <Modal>
            <Dialog>
              {({ close }) => (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    setResult(`submitted ${new FormData(e.currentTarget).get('power')}`);
                    close();
                  }}
                >
                  <Heading slot="title">New command</Heading>
                  <TextField name="power" defaultValue="-2">
                    <Label>Power (kW)</Label>
                    <Input />
                  </TextField>
                  <Button type="submit">Submit</Button>
                  <Button slot="close">Cancel</Button>
                </form>
              )}
            </Dialog>
          </Modal>
        </ModalOverlay>
      </DialogTrigger>
      <output data-testid="dialog-result">{result}</output>
    </section>
  );
}
